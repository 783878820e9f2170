/**
 * The records of a session as a virtualized grid: only the rows in view (plus a few) are in the
 * DOM, so 100,000 records scroll smoothly. The next page is fetched when the person nears the end
 * of what is loaded. Arrow keys, Home/End and Page Up/Down move the selection.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import type { KeyboardEvent } from 'react';
import { memo, useEffect, useId, useMemo, useRef } from 'react';
import type { HistoryRecordView } from '../../../../shared/contract.js';
import { formatBytes, formatDateTime } from '../../lib/format.js';
import { recordKey } from '../../state/slices/historySlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Spinner } from '../components/Spinner.js';
import { formatWhen, shortId } from '../../lib/traceFormat.js';
import { callerLabel } from '../../lib/callers.js';
import { ManualBadge, RecordStatusBadge } from './RecordStatusBadge.js';

const HISTORY_ROW_HEIGHT = 36;
const OVERSCAN = 12;
/** Start fetching the next page this many rows before the end of what is loaded. */
const PREFETCH_ROWS = 60;

/** One row; memoized, so scrolling re-renders only the rows that come into view. */
const Row = memo(function Row({
  record,
  index,
  start,
  selected,
  rowId,
  onSelect,
}: {
  record: HistoryRecordView;
  index: number;
  start: number;
  selected: boolean;
  rowId: string;
  /** Called with the record's `recordKey`. */
  onSelect: (key: string) => void;
}) {
  return (
    <div
      id={rowId}
      role="row"
      className={`h-row ${index % 2 ? 'is-odd' : ''}`}
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-history-row=""
      data-call-id={record.callId}
      style={{ transform: `translateY(${start}px)` }}
      onClick={() => onSelect(recordKey(record))}
    >
      <span role="gridcell" className="h-cell h-time" title={formatDateTime(record.updatedAt)}>
        {formatWhen(record.updatedAt)}
      </span>
      <span role="gridcell" className="h-cell h-tool" title={record.toolName}>
        <code>{record.toolName}</code>
        {/* Shown only when the list is too narrow for the Server and Caller columns (history.css). */}
        <span className="h-tool-server">
          on {record.serverId} · {callerLabel(record.userId)}
        </span>
      </span>
      <span role="gridcell" className="h-cell h-server">
        {record.serverId}
      </span>
      <span role="gridcell" className="h-cell h-caller" title={record.userId}>
        {callerLabel(record.userId)}
      </span>
      <span role="gridcell" className="h-cell h-status">
        <RecordStatusBadge record={record} />
        {record.resolvedBy === 'manual' && <ManualBadge />}
        {record.preview?.truncated && (
          <span
            className="chip"
            title="Large arguments or result: the list shows a preview, opening the call loads it whole"
            data-testid="history-row-size"
          >
            {formatBytes(record.preview.argsBytes + (record.preview.resultBytes ?? 0))}
          </span>
        )}
      </span>
      <span role="gridcell" className="h-cell h-call" title={record.callId}>
        <code>{shortId(record.callId)}</code>
      </span>
    </div>
  );
});

function HeadRow() {
  return (
    <div role="rowgroup" className="h-head">
      <div role="row" className="h-row h-head-row" aria-rowindex={1}>
        <span role="columnheader" className="h-cell h-time">
          Last activity
        </span>
        <span role="columnheader" className="h-cell h-tool">
          Tool
        </span>
        <span role="columnheader" className="h-cell h-server">
          Server
        </span>
        <span role="columnheader" className="h-cell h-caller">
          Caller
        </span>
        <span role="columnheader" className="h-cell h-status">
          Status
        </span>
        <span role="columnheader" className="h-cell h-call">
          Call id
        </span>
      </div>
    </div>
  );
}

/** The row a navigation key moves to from `from` (unclamped); undefined for other keys. */
function keyTarget(key: string, from: number, page: number, length: number): number | undefined {
  switch (key) {
    case 'ArrowDown':
      return from + 1;
    case 'ArrowUp':
      return from - 1;
    case 'PageDown':
      return from + page;
    case 'PageUp':
      return from - page;
    case 'Home':
      return 0;
    case 'End':
      return length - 1;
    default:
      return undefined;
  }
}

export function HistoryTable() {
  const records = useAppStore((s) => s.historyRecords);
  const hasMore = useAppStore((s) => s.historyCursor !== undefined);
  const loadingMore = useAppStore((s) => s.historyLoadingMore);
  const loadMore = useAppStore((s) => s.loadMoreHistory);
  const selectedKey = useAppStore((s) => s.selectedRecordKey);
  const select = useAppStore((s) => s.selectHistoryRecord);
  const scroller = useRef<HTMLDivElement>(null);
  const baseId = useId();

  const count = records.length + (hasMore ? 1 : 0);
  // eslint-disable-next-line react-hooks/incompatible-library -- the app does not use the React Compiler; the virtualizer re-renders this component itself
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => HISTORY_ROW_HEIGHT,
    overscan: OVERSCAN,
    getItemKey: (index) => {
      const record = records[index];
      return record ? recordKey(record) : 'loader';
    },
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? -1;

  useEffect(() => {
    if (hasMore && !loadingMore && lastIndex >= records.length - PREFETCH_ROWS) void loadMore();
  }, [hasMore, loadingMore, lastIndex, records.length, loadMore]);

  // Not on every scroll frame: the list may hold 100,000 records.
  const selectedIndex = useMemo(
    () => (selectedKey ? records.findIndex((r) => recordKey(r) === selectedKey) : -1),
    [records, selectedKey],
  );

  // A newly selected record (by keys, or from a trace's "Open in History", once it is loaded) is
  // scrolled into view — once: rows arriving live above it later do not pull the list back.
  const scrolledFor = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (selectedIndex < 0 || scrolledFor.current === selectedKey) return;
    scrolledFor.current = selectedKey;
    virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedKey, selectedIndex, virtualizer]);

  const rowId = (index: number) => `${baseId}-row-${index}`;

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    if (records.length === 0) return;
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 360) / HISTORY_ROW_HEIGHT) - 1);
    const from = selectedIndex < 0 ? -1 : selectedIndex;
    if (event.key === 'Escape') {
      select(undefined);
      return;
    }
    const next = keyTarget(event.key, from, page, records.length);
    if (next === undefined) return;
    event.preventDefault();
    const clamped = Math.max(0, Math.min(records.length - 1, next));
    const record = records[clamped];
    if (record) select(recordKey(record));
  }

  const activeRendered = selectedIndex >= 0 && items.some((i) => i.index === selectedIndex);

  return (
    <div
      className="h-grid"
      role="grid"
      aria-label="Recorded calls"
      aria-rowcount={hasMore ? -1 : records.length + 1}
      aria-activedescendant={activeRendered ? rowId(selectedIndex) : undefined}
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <HeadRow />
      <div ref={scroller} className="h-scroller" role="rowgroup">
        <div className="h-canvas" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const record = records[item.index];
            if (!record) {
              return (
                <div
                  key={item.key}
                  className="h-row h-loader"
                  style={{ transform: `translateY(${item.start}px)` }}
                  role="row"
                  aria-rowindex={item.index + 2}
                >
                  <span role="gridcell" className="h-cell">
                    {loadingMore && <Spinner label="Loading more calls" />} Loading more calls…
                  </span>
                </div>
              );
            }
            return (
              <Row
                key={item.key}
                record={record}
                index={item.index}
                start={item.start}
                selected={item.index === selectedIndex}
                rowId={rowId(item.index)}
                onSelect={select}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}
