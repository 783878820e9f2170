/** throttle(): the first request runs at once (end of turn), a burst after it becomes one trailing run per window. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttle } from '../../electron/util/throttle.js';

describe('throttle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs the first request, then one trailing run for a burst within the window', () => {
    const fn = vi.fn();
    const request = throttle(fn, 500);
    request();
    vi.advanceTimersByTime(0);
    expect(fn).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 100; i++) request();
    vi.advanceTimersByTime(499);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5_000);
    expect(fn).toHaveBeenCalledTimes(2);
  });
});
