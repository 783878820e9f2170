/**
 * People → API tokens: the command line's and scripts' tokens (`MINIHARNESS_TOKEN`). The
 * configuration file's are listed (they are revoked there); those made here show who made them,
 * when, and when last used, and can be revoked. A new token's value is shown once.
 */
import { useState } from 'react';
import type { ApiTokenView, ErrorShape, TeamRole } from '../../../../shared/contract.js';
import { formatDateTime } from '../../lib/format.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { CopyButton } from '../components/CopyButton.js';

const when = (at: number | null): string => (at === null ? '—' : formatDateTime(at));

function stateOf(token: ApiTokenView): string {
  if (token.id === null) return 'In the configuration file';
  return token.revokedAt === null ? 'Active' : `Revoked ${formatDateTime(token.revokedAt)}`;
}

export function ApiTokensCard({ tokens }: { tokens: ApiTokenView[] }) {
  const revoke = useAppStore((s) => s.revokeApiToken);
  const [refusal, setRefusal] = useState<ErrorShape | undefined>();
  const [created, setCreated] = useState<{ name: string; secret: string } | undefined>();
  const [revoking, setRevoking] = useState<ApiTokenView | undefined>();
  return (
    <section className="card" aria-labelledby="people-api-tokens">
      <h2 id="people-api-tokens" className="card-title">
        API tokens
      </h2>
      <CreateTokenForm onCreated={setCreated} onRefused={setRefusal} />
      {created && (
        <Callout tone="success" title={`Token “${created.name}” created`} role="status">
          <p>Copy it now: it is shown only this once (only its SHA-256 is kept).</p>
          <code aria-label="New token">{created.secret}</code> <CopyButton text={created.secret} />
        </Callout>
      )}
      {refusal && (
        <Callout tone="error" title="Not changed">
          {refusal.message}
        </Callout>
      )}
      <div className="table-scroll">
        <table className="table" aria-label="API tokens">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Created by</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id ?? `file:${t.name}`}>
                <td>{t.name}</td>
                <td>{t.role}</td>
                <td>{t.createdBy ?? '—'}</td>
                <td>{when(t.createdAt)}</td>
                <td>{when(t.lastUsedAt)}</td>
                <td>{stateOf(t)}</td>
                <td>
                  {t.id !== null && t.revokedAt === null && (
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-label={`Revoke ${t.name}`}
                      onClick={() => setRevoking(t)}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {revoking && (
        <ConfirmDialog
          title={`Revoke ${revoking.name}?`}
          confirmLabel="Revoke"
          danger
          onCancel={() => setRevoking(undefined)}
          onConfirm={() => {
            setRevoking(undefined);
            void revoke(revoking.id as string).then(setRefusal);
          }}
        >
          Every instance refuses this token from now on, also on connections it already opened. This cannot be undone.
        </ConfirmDialog>
      )}
    </section>
  );
}

function CreateTokenForm({
  onCreated,
  onRefused,
}: {
  onCreated: (created: { name: string; secret: string }) => void;
  onRefused: (error: ErrorShape | undefined) => void;
}) {
  const create = useAppStore((s) => s.createApiToken);
  const [name, setName] = useState('');
  const [role, setRole] = useState<TeamRole>('viewer');
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="people-token-form"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        void create({ name, role })
          .then((result) => {
            if ('error' in result) return onRefused(result.error);
            onRefused(undefined);
            onCreated({ name, secret: result.secret });
            setName('');
          })
          .finally(() => setBusy(false));
      }}
    >
      <label>
        Token name <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} required />
      </label>
      <label>
        Token role{' '}
        <select value={role} onChange={(e) => setRole(e.target.value as TeamRole)}>
          <option value="viewer">viewer</option>
          <option value="approver">approver</option>
          <option value="admin">admin</option>
        </select>
      </label>
      <button type="submit" className="btn btn-primary" disabled={busy || name.trim() === ''}>
        Create token
      </button>
    </form>
  );
}
