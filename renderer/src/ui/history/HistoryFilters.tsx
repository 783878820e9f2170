/** The toolbar over the records: the session, the status (segmented), the tool (exact name) and the caller. */
import type { CheckpointStatusView } from '../../state/slices/historySlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { RECORD_STATUS_LABELS } from '../../lib/historyFormat.js';
import { CallerFilter } from '../components/CallerFilter.js';
import { ToolNameFilter } from '../components/ToolNameFilter.js';
import { SessionPicker } from './SessionPicker.js';

const STATUS_FILTERS: { key: CheckpointStatusView | ''; label: string; title?: string }[] = [
  { key: '', label: 'All' },
  { key: 'started', label: 'Unfinished', title: 'In progress, or the result is unknown' },
  { key: 'completed', label: RECORD_STATUS_LABELS.completed, title: 'Completed without a tool error' },
  {
    key: 'tool_error',
    label: RECORD_STATUS_LABELS.tool_error,
    title: 'Completed, but the tool reported an error in its result',
  },
  { key: 'failed', label: RECORD_STATUS_LABELS.failed },
  {
    key: 'cancelled',
    label: RECORD_STATUS_LABELS.cancelled,
    title: 'Cancelled while it ran: the server was told, but may have acted',
  },
];

export function HistoryFilters() {
  const filters = useAppStore((s) => s.historyFilters);
  const setFilters = useAppStore((s) => s.setHistoryFilters);
  const records = useAppStore((s) => s.historyRecords);

  // Tool names seen in the first loaded records, as suggestions (the filter itself is exact).
  const suggestions = [...new Set(records.slice(0, 2_000).map((r) => r.toolName))].sort();

  return (
    <div className="filter-bar history-toolbar" role="search" aria-label="Filter history">
      <SessionPicker />
      <div className="segmented" role="group" aria-label="Status">
        {STATUS_FILTERS.map((f) => (
          <button
            key={f.key || 'all'}
            type="button"
            className="segment"
            aria-pressed={filters.status === f.key}
            title={f.title}
            onClick={() => setFilters({ status: f.key })}
          >
            {f.label}
          </button>
        ))}
      </div>
      <ToolNameFilter
        className="filter filter-inline"
        value={filters.toolName}
        suggestions={suggestions}
        onApply={(toolName) => setFilters({ toolName })}
      />
      <CallerFilter
        className="filter filter-inline"
        value={filters.userId}
        onChange={(userId) => setFilters({ userId })}
      />
    </div>
  );
}
