/**
 * One registered agent: when it was created (and revoked), what it sees, who is connected as it
 * in both protocol eras — its 2025 sessions and its 2026-07-28 clients (stateless: known by the
 * clientInfo their requests carry, listed while seen lately) — with each client's own name and
 * version, the revision it speaks, when it connected and was last seen; how many calls it made
 * and the last one; and what can be done with it: connect, change what it sees, revoke (after a
 * confirmation), remove once revoked. Only a client holding a connection open counts as
 * connected; one only seen lately is shown as seen (it may have exited). An agent created by an
 * OAuth sign-in says where that sign-in stands (signed in, not finished, expired, ended) and names
 * the client that signed in (its own claim) and where its sign-in returned.
 */
import { useState } from 'react';
import type { AgentView, GatewayStatus, SignInState } from '../../../../shared/agents.js';
import { formatDateTime } from '../../lib/format.js';
import { countOf } from '../../lib/plural.js';
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { connectedClientsOf } from '../../state/slices/agentsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { Spinner } from '../components/Spinner.js';
import { formatWhen } from '../../lib/traceFormat.js';
import { ConnectAgentDialog } from './ConnectAgent.js';
import { EditVisibilityDialog } from './EditVisibilityDialog.js';

type Open = 'connect' | 'visibility' | 'revoke' | 'remove' | undefined;

const CONFIRM = {
  revoke: {
    label: 'Revoke',
    text: 'Its open sessions and streams end now and every later request with its token is refused. This cannot be undone: to let it in again, add a new agent. Its recorded calls stay in History.',
  },
  remove: {
    label: 'Remove',
    text: 'It disappears from this list. Its recorded calls stay in History and Traces under its name.',
  },
} as const;

function useVisibilityText(agent: AgentView): string {
  const servers = useAppStore((s) => s.servers);
  const { visibility } = agent;
  const local = `${visibility.localTools ? ' and the local tools' : ', not the local tools'}${
    visibility.ownNames ? ', named as their servers call them' : ''
  }`;
  if (visibility.allServers) return `Every server’s tools${local}.`;
  if (visibility.serverIds.length === 0) return `No server’s tools${local}.`;
  const names = visibility.serverIds.map((id) => {
    const view = servers.find((v) => serverIdOf(v) === id);
    return view ? serverNameOf(view) : `${id} (removed)`;
  });
  return `The tools of ${names.join(', ')}${local}.`;
}

/** What the sign-in chip says, by where the sign-in stands (shared/agents.ts SignInState). */
const SIGN_IN_WORDS: Record<SignInState, { text: string; title: string; tone: string }> = {
  waiting: {
    text: 'sign-in not finished',
    title:
      'You allowed this client in the browser, but it has not collected its tokens yet: it cannot call until it does.',
    tone: 'chip chip-warning',
  },
  active: {
    text: 'signed in',
    title: 'Created when you allowed this client’s sign-in in the browser: it holds a valid token (none to copy).',
    tone: 'chip',
  },
  expired: {
    text: 'sign-in expired',
    title: 'Its tokens expired or were revoked: its client must sign in again before it can call.',
    tone: 'chip chip-warning',
  },
  ended: {
    text: 'sign-in ended',
    title:
      'MiniHarness ended this sign-in: a refresh token was used twice (a sign of a stolen token), or it reached its lifetime. Its tokens are refused; its client must sign in again, as a new agent.',
    tone: 'chip chip-error',
  },
};

function ConnectedClients({ agent }: { agent: AgentView }) {
  const clients = connectedClientsOf(agent);
  if (clients.length === 0) return <p className="muted">No client: the agent has not been seen lately.</p>;
  return (
    <div className="table-scroll">
      <table className="table agent-sessions" aria-label={`Clients of ${agent.name}`}>
        <thead>
          <tr>
            <th scope="col">Client (as it says)</th>
            <th scope="col">Version</th>
            <th scope="col">Protocol</th>
            <th scope="col">Since</th>
            <th scope="col">Now</th>
          </tr>
        </thead>
        <tbody>
          {clients.map((c) => (
            <tr key={c.key} data-era={c.era} data-open={c.open}>
              <td>{c.clientName ?? <span className="muted">not given</span>}</td>
              <td>{c.clientVersion ?? <span className="muted">—</span>}</td>
              <td
                title={
                  c.era === 'legacy' ? 'A 2025 session, opened by initialize' : 'Stateless: each request says who it is'
                }
              >
                {c.protocolVersion ?? <span className="muted">2025</span>}{' '}
                {c.era === 'legacy' ? (
                  <span className="muted">· session</span>
                ) : c.listening ? (
                  <span className="muted">· listening</span>
                ) : null}
              </td>
              <td title={formatDateTime(c.since)}>{formatWhen(c.since)}</td>
              <td title={`Last seen ${formatDateTime(c.lastSeenAt)}`}>
                {c.open ? (
                  'connected'
                ) : (
                  <span
                    className="muted"
                    title="It holds no connection open: it may have exited (nothing tells MiniHarness). It is forgotten once unseen for the idle time."
                  >
                    seen {formatWhen(c.lastSeenAt)}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** When the agent was created (and revoked), who signed it in, what it sees, its calls. */
function AgentFacts({ agent }: { agent: AgentView }) {
  const sees = useVisibilityText(agent);
  const last = agent.lastCall;
  return (
    <dl className="props">
      <dt>Created</dt>
      <dd>{formatDateTime(agent.createdAt)}</dd>
      {agent.revokedAt !== undefined && (
        <>
          <dt>Revoked</dt>
          <dd>{formatDateTime(agent.revokedAt)} · its token is refused</dd>
        </>
      )}
      {agent.signIn && (
        <>
          <dt>Signed in by</dt>
          <dd>
            {agent.signIn.clientName ? `“${agent.signIn.clientName}”` : 'an unnamed client'}{' '}
            <span className="muted">(its own name for itself) · returned to {agent.signIn.redirectTarget}</span>
          </dd>
        </>
      )}
      <dt>Sees</dt>
      <dd>{sees}</dd>
      <dt>Calls</dt>
      <dd>{countOf(agent.calls, 'call', 'calls')} recorded</dd>
      <dt>Last call</dt>
      <dd>
        {last ? (
          <>
            <code>{last.toolName}</code> on {last.serverId} ·{' '}
            <span title={formatDateTime(last.at)}>{formatWhen(last.at)}</span> · {last.status}
          </>
        ) : (
          <span className="muted">none yet</span>
        )}
      </dd>
    </dl>
  );
}

export function AgentCard({ agent, gateway }: { agent: AgentView; gateway: GatewayStatus }) {
  const revoke = useAppStore((s) => s.revokeAgent);
  const remove = useAppStore((s) => s.removeAgent);
  const busy = useAppStore((s) => s.agentsBusy[agent.id] === true);
  const [open, setOpen] = useState<Open>(undefined);
  const close = () => setOpen(undefined);
  const revoked = agent.revokedAt !== undefined;
  const clients = connectedClientsOf(agent);
  const connected = clients.filter((c) => c.open).length;
  const seen = clients.length - connected;
  const signIn = agent.signIn ? SIGN_IN_WORDS[agent.signIn.state] : undefined;

  return (
    <li
      className={`card agent-card ${revoked ? 'is-revoked' : ''}`}
      aria-labelledby={`agent-${agent.id}-name`}
      data-agent-id={agent.id}
    >
      <header className="agent-card-head">
        <h2 id={`agent-${agent.id}-name`} className="agent-name">
          {agent.name}
        </h2>
        {signIn && !revoked && (
          <span className={signIn.tone} title={signIn.title} data-sign-in={agent.signIn?.state}>
            {signIn.text}
          </span>
        )}
        {revoked ? (
          <span className="chip chip-error">revoked</span>
        ) : (
          <span className={connected > 0 ? 'chip chip-positive' : 'chip'}>
            {connected > 0
              ? countOf(connected, 'connected client', 'connected clients')
              : seen > 0
                ? `not connected · ${countOf(seen, 'client', 'clients')} seen lately`
                : 'not connected'}
          </span>
        )}
        <div className="agent-card-actions">
          {busy && <Spinner label="Saving" />}
          {!revoked && (
            <>
              {/* A signed-in agent is connected by its client's own sign-in: it has no token to paste anywhere. */}
              {!agent.signIn && (
                <button type="button" className="btn btn-small" onClick={() => setOpen('connect')}>
                  Connect…
                </button>
              )}
              <button type="button" className="btn btn-small" onClick={() => setOpen('visibility')} disabled={busy}>
                Change what it sees…
              </button>
              <button
                type="button"
                className="btn btn-small btn-danger-ghost"
                onClick={() => setOpen('revoke')}
                disabled={busy}
              >
                Revoke…
              </button>
            </>
          )}
          {revoked && (
            <button
              type="button"
              className="btn btn-small btn-danger-ghost"
              onClick={() => setOpen('remove')}
              disabled={busy}
            >
              Remove…
            </button>
          )}
        </div>
      </header>
      <AgentFacts agent={agent} />
      {!revoked && <ConnectedClients agent={agent} />}

      {open === 'connect' && <ConnectAgentDialog agentName={agent.name} gateway={gateway} onClose={close} />}
      {open === 'visibility' && <EditVisibilityDialog agent={agent} onClose={close} />}
      {(open === 'revoke' || open === 'remove') && (
        <ConfirmDialog
          title={`${CONFIRM[open].label} ${agent.name}?`}
          confirmLabel={CONFIRM[open].label}
          danger
          busy={busy}
          onCancel={close}
          onConfirm={() => {
            close();
            void (open === 'revoke' ? revoke : remove)(agent.id);
          }}
        >
          {CONFIRM[open].text}
        </ConfirmDialog>
      )}
    </li>
  );
}
