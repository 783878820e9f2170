/**
 * Whether the person dismissed the "secrets are not encrypted" banner. Kept in this browser's
 * localStorage (a display preference, nothing the core needs), keyed by the warning's text so a
 * different warning shows again. Settings keeps showing the warning and can bring the banner back.
 */
import { useSyncExternalStore } from 'react';

const KEY = 'miniharness.secretWarningDismissed';
const listeners = new Set<() => void>();

function read(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null; // storage disabled: the banner simply stays
  }
}

function write(value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, value);
  } catch {
    // Storage disabled or full: the dismissal lasts until the page reloads.
  }
  for (const listener of [...listeners]) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** True when this exact warning was dismissed; with the two actions. */
export function useSecretWarningDismissal(warning: string | undefined): {
  dismissed: boolean;
  dismiss: () => void;
  restore: () => void;
} {
  const stored = useSyncExternalStore(subscribe, read);
  return {
    dismissed: warning !== undefined && stored === warning,
    dismiss: () => warning !== undefined && write(warning),
    restore: () => write(null),
  };
}
