/** A server's status as a coloured pill; the error reason is in the title for a hover. */
import type { ServerStatusView } from '../../../../shared/contract.js';
import { statusLabel } from '../../lib/status.js';

export function StatusBadge({ status }: { status: ServerStatusView }) {
  return (
    <span
      className={`badge status status-${status.state}`}
      title={status.state === 'error' || status.state === 'reconnecting' ? status.reason : undefined}
      data-state={status.state}
    >
      <span className="status-dot" aria-hidden="true" />
      {statusLabel(status)}
    </span>
  );
}
