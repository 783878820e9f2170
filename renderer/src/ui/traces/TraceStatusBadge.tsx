/** A trace's status as a coloured pill: ok, error, denied, replayed, interrupted, cancelled, running. */
import type { TraceStatus } from '../../../../shared/traces.js';
import { TRACE_STATUS_LABELS } from '../../lib/traceFormat.js';

export function TraceStatusBadge({ status }: { status: TraceStatus }) {
  return (
    <span className={`badge status trace-status trace-status-${status}`} data-trace-status={status}>
      <span className="status-dot" aria-hidden="true" />
      {TRACE_STATUS_LABELS[status]}
    </span>
  );
}
