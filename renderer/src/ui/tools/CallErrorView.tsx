/** A call that failed before or while running: code-specific words, and the trace when there is one. */
import type { ErrorShape } from '../../../../shared/contract.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { describeErrorShape } from '../errors/describeError.js';
import { TraceButton } from './ResultView.js';

const NEXT_LABEL = { servers: 'Open Servers', permissions: 'Open Permissions', history: 'Open History', settings: 'Open Settings' } as const;

export function CallErrorView({ error, serverId, toolName }: { error: ErrorShape; serverId: string; toolName?: string }) {
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
      </Callout>
    </section>
  );
}
