/** The toolbar over the records: the session, the status (segmented) and the tool (exact name). */
import { useId, useRef, useState } from 'react';
import type { CheckpointStatusView } from '../../state/slices/historySlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { RECORD_STATUS_LABELS } from './historyFormat.js';
import { SessionPicker } from './SessionPicker.js';

const STATUS_FILTERS: { key: CheckpointStatusView | ''; label: string; title?: string }[] = [
  { key: '', label: 'All' },
  { key: 'started', label: 'Unfinished', title: 'In progress, or the result is unknown' },
  { key: 'completed', label: RECORD_STATUS_LABELS.completed },
  { key: 'failed', label: RECORD_STATUS_LABELS.failed },
];
const TYPING_DELAY_MS = 300;

export function HistoryFilters() {
  const filters = useAppStore((s) => s.historyFilters);
  const setFilters = useAppStore((s) => s.setHistoryFilters);
  const records = useAppStore((s) => s.historyRecords);
  const [toolText, setToolText] = useState(filters.toolName);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const listId = useId();

  // Tool names seen in the first loaded records, as suggestions (the filter itself is exact).
  const suggestions = [...new Set(records.slice(0, 2_000).map((r) => r.toolName))].sort();

  function onTool(value: string): void {
    setToolText(value);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setFilters({ toolName: value.trim() }), TYPING_DELAY_MS);
  }

  return (
    <div className="filter-bar history-toolbar" role="search" aria-label="Filter history">
      <SessionPicker />
      <div className="segmented" role="group" aria-label="Status">
        {STATUS_FILTERS.map((f) => (
          <button key={f.key || 'all'} type="button" className="segment" aria-pressed={filters.status === f.key} title={f.title} onClick={() => setFilters({ status: f.key })}>
            {f.label}
          </button>
        ))}
      </div>
      <label className="filter filter-inline">
        <span className="filter-label">Tool</span>
        <input
          className="input input-compact filter-input"
          type="search"
          list={listId}
          placeholder="Any tool"
          value={toolText}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => onTool(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              clearTimeout(timer.current);
              setFilters({ toolName: toolText.trim() });
            }
          }}
        />
        <datalist id={listId}>
          {suggestions.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </label>
    </div>
  );
}
