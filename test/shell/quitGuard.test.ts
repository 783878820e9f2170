import { describe, expect, it, vi } from 'vitest';
import { createQuitGuard } from '../../electron/shell/quitGuard.js';

function quitEvent() {
  return { preventDefault: vi.fn() };
}

describe('createQuitGuard', () => {
  it('cancels the first quit, closes the core once, then quits and lets that quit through', async () => {
    let finishClose!: () => void;
    const close = vi.fn(() => new Promise<void>((resolve) => (finishClose = resolve)));
    const quit = vi.fn();
    const exit = vi.fn();
    const guard = createQuitGuard({ close, quit, exit });

    const first = quitEvent();
    guard.onBeforeQuit(first);
    expect(first.preventDefault).toHaveBeenCalled();
    expect(guard.state).toBe('closing');

    // Quitting again while closing (Cmd+Q twice, a signal) does not close twice.
    const second = quitEvent();
    guard.onBeforeQuit(second);
    expect(second.preventDefault).toHaveBeenCalled();
    expect(close).toHaveBeenCalledTimes(1);
    expect(quit).not.toHaveBeenCalled();

    finishClose();
    await vi.waitFor(() => expect(quit).toHaveBeenCalledTimes(1));
    expect(guard.state).toBe('closed');

    const last = quitEvent();
    guard.onBeforeQuit(last);
    expect(last.preventDefault).not.toHaveBeenCalled();
    expect(close).toHaveBeenCalledTimes(1);
    expect(exit).not.toHaveBeenCalled();
  });

  it('still quits when closing fails, and logs it', async () => {
    const quit = vi.fn();
    const log = vi.fn();
    const guard = createQuitGuard({
      close: () => Promise.reject(new Error('database is locked')),
      quit,
      exit: vi.fn(),
      log,
    });
    guard.onBeforeQuit(quitEvent());
    await vi.waitFor(() => expect(quit).toHaveBeenCalled());
    expect(log.mock.calls[0]?.[0]).toMatch(/database is locked/);
  });

  it('exits when closing hangs past the timeout, and does not quit later', async () => {
    vi.useFakeTimers();
    try {
      let finishClose!: () => void;
      const quit = vi.fn();
      const exit = vi.fn();
      const guard = createQuitGuard({
        close: () => new Promise<void>((r) => (finishClose = r)),
        quit,
        exit,
        timeoutMs: 1000,
      });
      guard.onBeforeQuit(quitEvent());
      await vi.advanceTimersByTimeAsync(1001);
      expect(exit).toHaveBeenCalledWith(1);
      finishClose();
      await vi.advanceTimersByTimeAsync(10);
      expect(quit).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });
});
