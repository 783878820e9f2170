/** How long an open request (an approval, an elicitation or sampling ask) still waits for an answer. */
import { useNow } from './useNow.js';

export function formatLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}:${String(seconds % 60).padStart(2, '0')} min` : `${seconds} s`;
}

export function ExpiryCountdown({
  expiresAt,
  stopped,
  title = 'Without an answer, the call is denied when the time runs out',
}: {
  expiresAt: number;
  stopped: boolean;
  title?: string;
}) {
  const now = useNow(!stopped, 250);
  const left = expiresAt - now;
  const urgent = left < 15_000;
  return (
    <span className={`approval-countdown ${urgent ? 'is-urgent' : ''}`} role="timer" aria-live="off" title={title}>
      {left > 0 ? `Expires in ${formatLeft(left)}` : 'Expired'}
    </span>
  );
}
