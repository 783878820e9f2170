/** A checkpoint record's status as a pill; a completed call whose result has `isError` reads "Tool error". */
import type { HistoryRecordView } from '../../../../shared/contract.js';
import { displayStatus, RECORD_STATUS_LABELS } from '../../lib/historyFormat.js';

export function RecordStatusBadge({ record }: { record: Pick<HistoryRecordView, 'status' | 'result' | 'preview'> }) {
  const status = displayStatus(record);
  return (
    <span
      className={`badge status record-status record-status-${status}`}
      data-record-status={status}
      title={status === 'tool_error' ? 'The call completed, but the tool reported an error in its result' : undefined}
    >
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
