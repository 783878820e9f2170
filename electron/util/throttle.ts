/**
 * Throttling: the first request runs `fn` at the end of its turn; requests within `ms` after it
 * wait for one trailing run. A view rebuilt from the database after every agent call (the
 * Agents view counts each agent's traces) would cost more than the call; once per `ms` is what a
 * person can read anyway. A run after the core closed is the caller's to ignore (the Agents
 * view checks `closing`); the timer is unref'd, so it never holds the process open.
 */
export function throttle(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = -Infinity;
  const run = (): void => {
    timer = undefined;
    last = performance.now();
    fn();
  };
  return (): void => {
    if (timer) return;
    const wait = Math.max(0, last + ms - performance.now());
    timer = setTimeout(run, wait);
    timer.unref?.();
  };
}
