/** A call that failed before or while running: code-specific words, and the trace when there is one. */
import type { ErrorShape } from '../../../../shared/contract.js';
import type { ElicitationLink } from '../../../../shared/errors.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from './Callout.js';
import { describeErrorShape } from '../../lib/describeError.js';
import { TraceButton } from './ResultView.js';

/**
 * The links a server asks the person to open before it runs the call (-32042): each with its
 * host in plain sight, opened in the browser only by a deliberate click (never by itself).
 */
function ElicitationLinks({ links }: { links: ElicitationLink[] }) {
  return (
    <ul className="call-error-links" aria-label="Links to open">
      {links.map((link, index) => (
        <li key={index}>
          {link.message && <span className="call-error-link-message">{link.message} </span>}
          <a className="btn btn-small" href={link.url} target="_blank" rel="noopener noreferrer" title={link.url}>
            Open link
          </a>{' '}
          <span className="call-error-link-host">
            The link leads to <strong>{link.host}</strong>:
          </span>{' '}
          <code className="call-error-link-url">{link.url}</code>
        </li>
      ))}
    </ul>
  );
}

const NEXT_LABEL = {
  servers: 'Open Servers',
  permissions: 'Open Permissions',
  history: 'Open History',
  settings: 'Open Settings',
} as const;

export function CallErrorView({
  error,
  serverId,
  toolName,
}: {
  error: ErrorShape;
  serverId: string;
  toolName?: string;
}) {
  const navigate = useAppStore((s) => s.navigate);
  const openPermissionsFor = useAppStore((s) => s.openPermissionsFor);
  const selectServer = useAppStore((s) => s.selectServer);
  const words = describeErrorShape(error);
  const traceId = error.details?.traceId;
  const next = words.next;
  return (
    <section className="call-error" aria-label="Call failed" data-code={error.code}>
      <Callout
        tone={words.tone}
        title={words.title}
        role="alert"
        actions={
          (traceId || next) && (
            <>
              {traceId && <TraceButton traceId={traceId} />}
              {next && (
                <button
                  type="button"
                  className="btn btn-small btn-ghost"
                  onClick={() =>
                    next === 'servers' && serverId !== 'local'
                      ? selectServer(serverId)
                      : next === 'permissions' && toolName
                        ? openPermissionsFor(serverId, toolName)
                        : navigate(next)
                  }
                >
                  {NEXT_LABEL[next]}
                </button>
              )}
            </>
          )
        }
      >
        {words.text} <span className="call-error-code">({error.code})</span>
        {error.details?.links && error.details.links.length > 0 && <ElicitationLinks links={error.details.links} />}
      </Callout>
    </section>
  );
}
