/**
 * Whether History shows every session or one: the person's last choice, kept in this browser's
 * localStorage (a display preference, nothing the core needs) so History opens the way it was
 * left — "All sessions" shows an agent run's or an agent's calls without changing the filter again.
 */
const KEY = 'miniharness.history.scope';

export type HistoryScope = 'all' | 'session';

export function rememberedHistoryScope(): HistoryScope | undefined {
  try {
    const value = globalThis.localStorage?.getItem(KEY);
    return value === 'all' || value === 'session' ? value : undefined;
  } catch {
    return undefined; // storage disabled: History opens on its default
  }
}

export function rememberHistoryScope(scope: HistoryScope): void {
  try {
    globalThis.localStorage?.setItem(KEY, scope);
  } catch {
    // Storage disabled or full: the choice lasts until the page reloads.
  }
}
