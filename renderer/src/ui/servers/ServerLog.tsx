/**
 * A server's log: its stderr, its MCP log messages (level, logger, data) and the client's own
 * notes (connects, retries, errors), loaded once and then followed live. It sticks to the newest
 * line unless the person scrolled up to read. The level selector asks the server for messages of
 * that level and above (`logging/setLevel`), when the server logs.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { LogLevel, LogLineView } from '../../../../shared/contract.js';
import { LOG_LEVELS } from '../../../../shared/contract.js';
import { formatTime } from '../../lib/format.js';
import type { LogItem } from '../../state/slices/serversSlice.js';
import { selectLog } from '../../state/selectors.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';

type StreamFilter = 'all' | LogLineView['stream'];
const FILTERS: { key: StreamFilter; label: string }[] = [
  { key: 'all', label: 'All' },
  { key: 'stderr', label: 'Server stderr' },
  { key: 'message', label: 'Server messages' },
  { key: 'client', label: 'Client' },
];

/**
 * The level selector: enabled once the server is connected and declares `logging`. Until a level
 * is chosen the server sends what it likes (its own default).
 */
function LogLevelSelect({
  serverId,
  level,
  available,
}: {
  serverId: string;
  level: LogLevel | undefined;
  available: boolean;
}) {
  const setLogLevel = useAppStore((s) => s.setLogLevel);
  const [pending, setPending] = useState(false);
  return (
    <label
      className="log-level"
      title={
        available
          ? 'Messages of this level and above (logging/setLevel)'
          : 'Available once the server is connected, if it supports MCP logging'
      }
    >
      <span>Message level</span>
      <select
        value={level ?? ''}
        disabled={!available || pending}
        onChange={(e) => {
          setPending(true);
          void setLogLevel(serverId, e.target.value as LogLevel).finally(() => setPending(false));
        }}
      >
        {level === undefined && <option value="">server default</option>}
        {LOG_LEVELS.map((l) => (
          <option key={l} value={l}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
}

function streamLabel(line: LogItem): string {
  if (line.dropped !== undefined) return 'gap';
  return line.stream === 'message' ? (line.level ?? 'message') : line.stream;
}

/** Within this many pixels of the bottom counts as "following". */
const STICK_THRESHOLD_PX = 24;
const EMPTY: LogItem[] = [];

function StreamFilterButtons({ filter, onChange }: { filter: StreamFilter; onChange: (filter: StreamFilter) => void }) {
  return (
    <div className="segmented" role="group" aria-label="Show lines from">
      {FILTERS.map((f) => (
        <button
          key={f.key}
          type="button"
          className="segment"
          aria-pressed={filter === f.key}
          onClick={() => onChange(f.key)}
        >
          {f.label}
        </button>
      ))}
    </div>
  );
}

function LogLines({ lines }: { lines: LogItem[] }) {
  return (
    <ol className="log-lines">
      {lines.map((line, i) => (
        <li
          key={`${line.at}-${i}`}
          className={
            line.dropped === undefined
              ? `log-line log-${line.stream}${line.level ? ` log-level-${line.level}` : ''}`
              : 'log-line log-client log-dropped'
          }
          data-dropped={line.dropped}
          data-level={line.level}
        >
          <time className="log-time" dateTime={new Date(line.at).toISOString()}>
            {formatTime(line.at)}
          </time>
          <span className="log-stream">{streamLabel(line)}</span>
          <span className="log-text">
            {line.logger && <span className="log-logger">{line.logger}</span>}
            {line.text}
          </span>
        </li>
      ))}
    </ol>
  );
}

export function ServerLog({
  serverId,
  logLevel,
  loggingAvailable,
}: {
  serverId: string;
  logLevel?: LogLevel | undefined;
  loggingAvailable: boolean;
}) {
  const entry = useAppStore(selectLog(serverId));
  const loadLog = useAppStore((s) => s.loadLog);
  const [filter, setFilter] = useState<StreamFilter>('all');
  const [following, setFollowing] = useState(true);
  const scroller = useRef<HTMLDivElement>(null);

  useEffect(() => {
    void loadLog(serverId);
  }, [serverId, loadLog]);

  const lines = entry?.lines ?? EMPTY;
  // A "lines dropped" mark stays visible under every filter: it says the view has a gap.
  const shown = filter === 'all' ? lines : lines.filter((l) => l.dropped !== undefined || l.stream === filter);
  const lineCount = shown.filter((l) => l.dropped === undefined).length;

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && following) el.scrollTop = el.scrollHeight;
  }, [shown, following]);

  function onScroll(): void {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_THRESHOLD_PX;
    if (atBottom !== following) setFollowing(atBottom);
  }

  return (
    <div className="log">
      <div className="log-toolbar">
        <StreamFilterButtons filter={filter} onChange={setFilter} />
        <LogLevelSelect serverId={serverId} level={logLevel} available={loggingAvailable} />
        <span className="log-count muted">
          {lineCount} {lineCount === 1 ? 'line' : 'lines'}
        </span>
        <button
          type="button"
          className="btn btn-small btn-ghost"
          onClick={() => void loadLog(serverId)}
          disabled={entry?.loading}
        >
          <Icon name="refresh" size={14} />
          Reload
        </button>
      </div>
      {entry?.error && (
        <Callout tone="error" title="Could not load the log">
          {entry.error}
        </Callout>
      )}
      <div
        className="log-scroller"
        ref={scroller}
        onScroll={onScroll}
        role="log"
        aria-live="off"
        aria-label="Server log"
        tabIndex={0}
      >
        {!entry || (entry.loading && lines.length === 0) ? (
          <div className="loading-block">
            <Spinner label="Loading log" /> Loading log…
          </div>
        ) : shown.length === 0 ? (
          <p className="log-empty">
            No log lines yet. The server’s stderr output, its MCP log messages and the client’s notes about connecting
            appear here.
          </p>
        ) : (
          <LogLines lines={shown} />
        )}
      </div>
      {!following && (
        <button
          type="button"
          className="btn btn-small log-jump"
          onClick={() => {
            setFollowing(true);
          }}
        >
          <Icon name="down" size={14} />
          Jump to latest
        </button>
      )}
    </div>
  );
}
