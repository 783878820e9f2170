/**
 * An egress approval (issue 29): a sandboxed server tried to reach a host its sandbox does not
 * list. The same dialog, queue and answers as a tool call; what is shown is the server, the host
 * and port, and the call that was running on that server when it tried (if one). The attempt
 * waits for the answer.
 */
import type { ApprovalView, EgressAsk } from '../../../../shared/contract.js';
import { callerLabel } from '../../lib/callers.js';
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { useAppStore } from '../../state/useAppStore.js';

function useServerName(serverId: string): string {
  return useAppStore((s) => {
    const view = s.servers.find((v) => serverIdOf(v) === serverId);
    return view ? serverNameOf(view) : serverId;
  });
}

/** The dialog's title for an egress approval. */
export function EgressTitle({ view, egress }: { view: ApprovalView; egress: EgressAsk }) {
  const name = useServerName(view.serverId);
  return (
    <>
      Let {name} reach{' '}
      <code>
        {egress.host}:{egress.port}
      </code>
      ?
    </>
  );
}

export function EgressApprovalDetails({ view, egress }: { view: ApprovalView; egress: EgressAsk }) {
  const name = useServerName(view.serverId);
  return (
    <div className="approval-details egress-details">
      <dl className="props approval-props">
        <dt>Server</dt>
        <dd>
          {name}
          {name !== view.serverId && (
            <>
              {' '}
              <code className="muted">{view.serverId}</code>
            </>
          )}{' '}
          <span className="chip">sandboxed</span>
        </dd>
        <dt>Host</dt>
        <dd>
          <code className="approval-egress-host">{egress.host}</code>
        </dd>
        <dt>Port</dt>
        <dd>
          <code className="approval-egress-port">{egress.port}</code>
        </dd>
        <dt>Call in flight</dt>
        <dd className="approval-egress-call">
          {egress.call ? (
            <>
              <code>{egress.call.toolName}</code>
              <span className="muted"> asked by {callerLabel(egress.call.userId)}</span>
            </>
          ) : (
            <span className="muted">none (the server tried on its own)</span>
          )}
        </dd>
        <dt>Why it asks</dt>
        <dd className="approval-reason">{view.reason}</dd>
        <dt>Answers</dt>
        <dd className="approval-egress-answers">
          Allow once: this connection only. For this session: until the app quits.{' '}
          {egress.entry ? (
            <>
              Always: adds <code>{egress.entry}</code> to the server’s sandbox hosts (it restarts with it when its calls
              have ended).
            </>
          ) : (
            'Always: this host cannot be listed in a sandbox, so it is allowed for this session.'
          )}{' '}
          Deny: this connection fails, and the next ones without asking until the server restarts.
        </dd>
      </dl>
    </div>
  );
}
