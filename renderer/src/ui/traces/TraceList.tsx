/**
 * The trace list, newest first: tool, status, server, duration and time; paged with "Load more".
 * An error sentence the row above already shows reads "Same as above." (full words in the tooltip).
 */
import type { TraceSummary } from '../../../../shared/traces.js';
import { formatDateTime, formatDuration } from '../../lib/format.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Icon } from '../components/Icon.js';
import { SentenceOrSameAsAbove } from '../components/SameAsAbove.js';
import { Spinner } from '../components/Spinner.js';
import { TraceStatusBadge } from './TraceStatusBadge.js';
import { formatWhen } from '../../lib/traceFormat.js';

function TraceRow({ trace, above }: { trace: TraceSummary; above: TraceSummary | undefined }) {
  const selected = useAppStore((s) => s.selectedTraceId === trace.traceId);
  const select = useAppStore((s) => s.selectTrace);
  return (
    <li>
      <button
        type="button"
        className="trace-item"
        aria-current={selected ? 'true' : undefined}
        onClick={() => select(trace.traceId)}
        data-trace-id={trace.traceId}
      >
        <span className="trace-item-top">
          <code className="trace-item-tool">{trace.toolName}</code>
          <TraceStatusBadge status={trace.status} />
        </span>
        <span className="trace-item-meta">
          <span className="trace-item-server">{trace.serverId}</span>
          <span aria-hidden="true">·</span>
          <span>
            {trace.durationMs !== undefined
              ? formatDuration(trace.durationMs)
              : trace.status === 'running'
                ? 'running…'
                : '—'}
          </span>
          <time
            className="trace-item-time"
            dateTime={new Date(trace.startedAt).toISOString()}
            title={formatDateTime(trace.startedAt)}
          >
            {formatWhen(trace.startedAt)}
          </time>
        </span>
        {trace.error && (
          <SentenceOrSameAsAbove
            className="trace-item-error"
            text={trace.error.message}
            same={above?.error?.message === trace.error.message}
          />
        )}
      </button>
    </li>
  );
}

export function TraceList() {
  const traces = useAppStore((s) => s.traces);
  const cursor = useAppStore((s) => s.tracesCursor);
  const loadingMore = useAppStore((s) => s.tracesLoadingMore);
  const loadMore = useAppStore((s) => s.loadMoreTraces);
  return (
    <nav className="trace-list" aria-label="Trace list">
      <ul role="list">
        {traces.map((trace, index) => (
          <TraceRow key={trace.traceId} trace={trace} above={traces[index - 1]} />
        ))}
      </ul>
      <div className="list-foot">
        {cursor ? (
          <button type="button" className="btn btn-small" onClick={() => void loadMore()} disabled={loadingMore}>
            {loadingMore ? <Spinner label="Loading more traces" /> : <Icon name="down" size={14} />}
            Load more
          </button>
        ) : (
          <span className="muted">
            {traces.length} {traces.length === 1 ? 'trace' : 'traces'} · that is all
          </span>
        )}
      </div>
    </nav>
  );
}
