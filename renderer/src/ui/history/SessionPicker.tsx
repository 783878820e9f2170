/**
 * Which session's calls History shows: a button naming the chosen session, opening a list of all
 * sessions (this app's own first) with their call counts and last activity — or "All sessions"
 * (what the caller filter shows: an agent's calls are spread over its sessions). Sessions with calls
 * still `started` are marked "needs attention". A native popover: Esc and a click outside close it.
 */
import { countOf } from '../../lib/plural.js';
import { useId, useRef } from 'react';
import type { SessionView } from '../../state/slices/historySlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { rememberHistoryScope } from '../../state/historyScope.js';
import { Icon } from '../components/Icon.js';
import { formatWhen } from '../../lib/traceFormat.js';
import { useSessionLabel } from '../components/useSessionLabel.js';

export const formatCount = countOf;

function AttentionChip({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span
      className="chip chip-warning attention-chip"
      title="Calls still in progress, or whose result is unknown: check them and resolve by hand if nothing is running"
    >
      {countOf(count, 'needs', 'need')} attention
    </span>
  );
}

function SessionOption({
  session,
  label,
  selected,
  onPick,
}: {
  session: SessionView;
  label: string;
  selected: boolean;
  onPick: (id: string) => void;
}) {
  return (
    <li>
      <button
        type="button"
        className="session-option"
        aria-current={selected ? 'true' : undefined}
        onClick={() => onPick(session.sessionId)}
        data-session-id={session.sessionId}
        title={session.sessionId}
      >
        <span className="session-option-main">
          <span className="session-option-name">{label}</span>
          <span className="session-option-meta">
            {formatCount(session.count, 'call', 'calls')}
            {session.lastActivity !== undefined && ` · last activity ${formatWhen(session.lastActivity)}`}
          </span>
        </span>
        <AttentionChip count={session.started} />
        {selected && <Icon name="check" size={16} className="session-option-check" />}
      </button>
    </li>
  );
}

export function SessionPicker() {
  const sessions = useAppStore((s) => s.historySessions);
  const allSessions = useAppStore((s) => s.historyAllSessions);
  const selectedId = useAppStore((s) => (s.historyAllSessions ? undefined : s.historySessionId));
  const select = useAppStore((s) => s.selectHistorySession);
  const selectAll = useAppStore((s) => s.showAllHistorySessions);
  const popoverId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const popover = useRef<HTMLDivElement>(null);
  const sessionLabel = useSessionLabel();

  const selected = sessions.find((s) => s.sessionId === selectedId);
  const total = sessions.reduce((n, s) => n + s.count, 0);
  const label = allSessions
    ? 'All sessions'
    : selected
      ? sessionLabel(selected)
      : selectedId
        ? sessionLabel({ sessionId: selectedId, current: false })
        : 'Choose a session';

  function place(): void {
    const anchor = button.current?.getBoundingClientRect();
    const panel = popover.current;
    if (!anchor || !panel) return;
    panel.style.top = `${Math.round(anchor.bottom + 6)}px`;
    panel.style.left = `${Math.round(anchor.left)}px`;
  }

  // The person's choice of one session or all is remembered: History opens that way next time.
  function pick(id: string): void {
    popover.current?.hidePopover();
    rememberHistoryScope('session');
    select(id);
  }

  function pickAll(): void {
    popover.current?.hidePopover();
    rememberHistoryScope('all');
    selectAll();
  }

  return (
    <>
      <button
        ref={button}
        type="button"
        className="session-trigger"
        popoverTarget={popoverId}
        onClick={place}
        aria-label={`Session: ${allSessions || selected ? label : 'none'} — choose another`}
      >
        <Icon name="history" size={16} />
        <span className="session-trigger-text">
          <span className="session-trigger-name">{label}</span>
          {selected && <span className="session-trigger-meta">{formatCount(selected.count, 'call', 'calls')}</span>}
          {allSessions && <span className="session-trigger-meta">{formatCount(total, 'call', 'calls')}</span>}
        </span>
        {selected && <AttentionChip count={selected.started} />}
        <Icon name="chevronDown" size={14} />
      </button>
      <div ref={popover} id={popoverId} popover="auto" className="session-popover" aria-label="Sessions">
        <p className="session-popover-title">Sessions</p>
        <ul role="list" className="session-options">
          <li>
            <button
              type="button"
              className="session-option"
              aria-current={allSessions ? 'true' : undefined}
              onClick={pickAll}
              data-session-id=""
            >
              <span className="session-option-main">
                <span className="session-option-name">All sessions</span>
                <span className="session-option-meta">
                  {formatCount(total, 'call', 'calls')} · yours and every agent’s
                </span>
              </span>
              {allSessions && <Icon name="check" size={16} className="session-option-check" />}
            </button>
          </li>
          {sessions.map((session) => (
            <SessionOption
              key={session.sessionId}
              session={session}
              label={sessionLabel(session)}
              selected={session.sessionId === selectedId}
              onPick={pick}
            />
          ))}
        </ul>
      </div>
    </>
  );
}
