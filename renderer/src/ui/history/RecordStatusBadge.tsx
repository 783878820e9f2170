/** A checkpoint record's status as a pill; `started` reads "In progress or unknown". */
import type { HistoryRecordView } from '../../../../shared/contract.js';
import { RECORD_STATUS_LABELS } from './historyFormat.js';

export function RecordStatusBadge({ status }: { status: HistoryRecordView['status'] }) {
  return (
    <span className={`badge status record-status record-status-${status}`} data-record-status={status}>
      <span className="status-dot" aria-hidden="true" />
      {RECORD_STATUS_LABELS[status]}
    </span>
  );
}

export function ManualBadge() {
  return (
    <span className="chip chip-manual" title="A person resolved this call by hand in History">
      manual
    </span>
  );
}
