/**
 * Transient notices (an action failed, a server was saved) in a strip at the bottom of the main
 * column: it takes its own row of the layout, so it never covers the view's controls (and modal
 * dialogs sit above it). Only the newest shows; the rest collapse behind "+N more". Each can be
 * dismissed, and each goes by itself after a while (errors stay longer) — but not while the person
 * reads them: expanded, hovered or focused, the timers stop, and start over afterwards.
 */
import { useEffect, useRef, useState } from 'react';
import type { Notice } from '../../state/slices/appSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { countOf } from '../../lib/plural.js';
import { Icon } from './Icon.js';

const AUTO_DISMISS_MS = { info: 5_000, success: 4_000, error: 10_000 } as const;

function NoticeItem({ notice }: { notice: Notice }) {
  const dismiss = useAppStore((s) => s.dismissNotice);
  return (
    <li className={`notice notice-${notice.tone}`} data-notice-tone={notice.tone}>
      <Icon name={notice.tone === 'error' ? 'warning' : notice.tone === 'success' ? 'check' : 'info'} size={18} />
      <span className="notice-text">{notice.text}</span>
      <button
        type="button"
        className="btn btn-icon btn-ghost"
        onClick={() => dismiss(notice.id)}
        aria-label="Dismiss notice"
      >
        <Icon name="close" size={14} />
      </button>
    </li>
  );
}

/** Every notice goes after its tone's time (shown or collapsed), unless paused; a pause restarts the times. */
function useAutoDismiss(notices: Notice[], paused: boolean): void {
  const dismiss = useAppStore((s) => s.dismissNotice);
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const live = new Set(paused ? [] : notices.map((n) => n.id));
    for (const notice of paused ? [] : notices) {
      if (!timers.current.has(notice.id))
        timers.current.set(
          notice.id,
          setTimeout(() => dismiss(notice.id), AUTO_DISMISS_MS[notice.tone]),
        );
    }
    for (const [id, timer] of timers.current) {
      if (!live.has(id)) {
        clearTimeout(timer);
        timers.current.delete(id);
      }
    }
  }, [notices, paused, dismiss]);
  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    };
  }, []);
}

export function Notices() {
  const notices = useAppStore((s) => s.notices);
  const [expanded, setExpanded] = useState(false);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  useAutoDismiss(notices, expanded || hovered || focused);
  const shown = expanded ? notices : notices.slice(-1);
  const hidden = notices.length - shown.length;
  return (
    <section
      className="notices"
      aria-label="Notifications"
      data-count={notices.length}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(event) => setFocused(event.currentTarget.contains(event.relatedTarget as Node | null))}
    >
      <ul className="notice-list" aria-live="polite">
        {shown.map((notice) => (
          <NoticeItem key={notice.id} notice={notice} />
        ))}
      </ul>
      {notices.length > 1 && (
        <button
          type="button"
          className="btn btn-small btn-ghost notices-toggle"
          aria-expanded={expanded}
          onClick={() => setExpanded(!expanded)}
        >
          {expanded ? 'Show the latest only' : `+${countOf(hidden, 'more notice', 'more notices')}`}
        </button>
      )}
    </section>
  );
}
