/**
 * Waits for `work` to settle (a rejection counts: it is not rethrown) at most `ms`; says whether it
 * settled in time. The one "race a promise against a timer" of the app's bounded waits (closing,
 * ending an agent's work): the timer is cleared as soon as the work settles.
 */
export async function settledWithin(work: Promise<unknown> | undefined, ms: number): Promise<boolean> {
  if (!work) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), false)));
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
