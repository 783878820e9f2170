/**
 * People (`miniharness serve`, admins only — the sidebar shows it to an admin, and main refuses
 * every other role): everyone who signed in with their role, where an admin gives, changes or
 * takes away a role; and the command line's API tokens, made here (the value shown once) and
 * revoked here. What the configuration file sets is a floor this page cannot lower.
 */
import { useEffect, useState } from 'react';
import type { ErrorShape, PersonView, TeamRole } from '../../../../shared/contract.js';
import { formatDateTime } from '../../lib/format.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { Spinner } from '../components/Spinner.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { ApiTokensCard } from './ApiTokensCard.js';

const ROLES: readonly TeamRole[] = ['viewer', 'approver', 'admin'];

/** What each role may do, as the page says it (electron/serve/roles.ts decides). */
const ROLE_WORDS: Record<TeamRole, string> = {
  viewer: 'reads History and Traces',
  approver: 'also decides approvals and resolves unknown calls',
  admin: 'also servers, rules, agents, settings and people',
};

export function PeopleView() {
  const list = useAppStore((s) => s.people);
  const load = useAppStore((s) => s.loadPeople);
  const [loadError, setLoadError] = useState<string | undefined>();
  const [refusal, setRefusal] = useState<ErrorShape | undefined>();

  useEffect(() => {
    load().catch((error: unknown) => setLoadError(error instanceof Error ? error.message : String(error)));
  }, [load]);

  return (
    <section className="view" aria-labelledby="view-title">
      <ViewHeader
        title="People"
        subtitle="Who may use this MiniHarness, with which role, and the command line’s tokens."
      />
      <div className="view-body view-body-narrow people-body">
        <Callout tone="info">
          Roles: a <strong>viewer</strong> {ROLE_WORDS.viewer}; an <strong>approver</strong> {ROLE_WORDS.approver}; an{' '}
          <strong>admin</strong> {ROLE_WORDS.admin}. People named in the configuration file keep at least the role it
          gives them: this page can raise it, not lower it or remove them. A change applies at once, on every instance.
        </Callout>
        {refusal && (
          <Callout tone="error" title="Not changed">
            {refusal.message}
          </Callout>
        )}
        {loadError && !list && (
          <Callout tone="error" title="Could not load people">
            {loadError}
          </Callout>
        )}
        {!list && !loadError && (
          <div className="loading-block">
            <Spinner label="Loading people" /> Loading people…
          </div>
        )}
        {list && <PeopleTable people={list.people} onRefused={setRefusal} />}
        {list && <ApiTokensCard tokens={list.tokens} />}
      </div>
    </section>
  );
}

function PeopleTable({
  people,
  onRefused,
}: {
  people: PersonView[];
  onRefused: (error: ErrorShape | undefined) => void;
}) {
  const setRole = useAppStore((s) => s.setPersonRole);
  const remove = useAppStore((s) => s.removePerson);
  const key = (p: PersonView) => ({ issuer: p.issuer, subject: p.subject });
  const [removing, setRemoving] = useState<PersonView | undefined>();
  return (
    <section className="card" aria-labelledby="people-signed-in">
      <h2 id="people-signed-in" className="card-title">
        People who signed in
      </h2>
      {people.length === 0 ? (
        <p className="muted">Nobody has signed in yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="table" aria-label="People">
            <thead>
              <tr>
                <th scope="col">Person</th>
                <th scope="col">Role</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {people.map((p) => (
                <tr key={`${p.issuer} ${p.subject}`}>
                  <td>
                    {p.label}
                    {p.you && ' (you)'}
                    {p.email && p.email !== p.label && <div className="muted">{p.email}</div>}
                  </td>
                  <td>
                    <select
                      aria-label={`Role of ${p.label}`}
                      value={p.role ?? ''}
                      onChange={(e) => void setRole({ ...key(p), role: e.target.value as TeamRole }).then(onRefused)}
                    >
                      {p.role === null && <option value="">No role</option>}
                      {ROLES.map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                    {p.configuredRole && <div className="muted">at least {p.configuredRole} (configuration file)</div>}
                  </td>
                  <td>{p.lastSignInAt === null ? '—' : formatDateTime(p.lastSignInAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-label={`Remove ${p.label}`}
                      disabled={p.configuredRole !== null}
                      title={p.configuredRole !== null ? 'Named in the configuration file' : undefined}
                      onClick={() => setRemoving(p)}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.label}?`}
          confirmLabel="Remove"
          danger
          onCancel={() => setRemoving(undefined)}
          onConfirm={() => {
            setRemoving(undefined);
            void remove(key(removing)).then(onRefused);
          }}
        >
          Their role is taken away and their sessions end on every instance. They can sign in again only once an admin
          gives them a role.
        </ConfirmDialog>
      )}
    </section>
  );
}
