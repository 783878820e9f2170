/** Transient notices (an action failed, a server was saved) in a live region at the corner. */
import { useEffect } from 'react';
import type { Notice } from '../../state/slices/appSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Icon } from './Icon.js';

const AUTO_DISMISS_MS = { info: 5_000, success: 4_000, error: 10_000 } as const;

function NoticeItem({ notice }: { notice: Notice }) {
  const dismiss = useAppStore((s) => s.dismissNotice);
  useEffect(() => {
    const timer = setTimeout(() => dismiss(notice.id), AUTO_DISMISS_MS[notice.tone]);
    return () => clearTimeout(timer);
  }, [notice.id, notice.tone, dismiss]);
  return (
    <li className={`notice notice-${notice.tone}`}>
      <Icon name={notice.tone === 'error' ? 'warning' : notice.tone === 'success' ? 'check' : 'info'} size={18} />
      <span className="notice-text">{notice.text}</span>
      <button type="button" className="btn btn-icon btn-ghost" onClick={() => dismiss(notice.id)} aria-label="Dismiss notice">
        <Icon name="close" size={14} />
      </button>
    </li>
  );
}

export function Notices() {
  const notices = useAppStore((s) => s.notices);
  return (
    <ul className="notices" aria-live="polite" aria-label="Notifications">
      {notices.map((notice) => (
        <NoticeItem key={notice.id} notice={notice} />
      ))}
    </ul>
  );
}
