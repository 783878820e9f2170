/**
 * Closing the core (MCP server processes, the SQLite database) before the app exits. Electron's
 * before-quit cannot wait for a promise, so the first one is cancelled, the core is closed once,
 * and the app is asked to quit again — which this guard then lets through. A close that hangs
 * does not keep the app alive forever.
 */
export interface QuitGuardDeps {
  close(): Promise<void>;
  /** app.quit(): emits before-quit again, which now passes. */
  quit(): void;
  /** app.exit(code): leaves without events (used when closing hangs). */
  exit(code: number): void;
  timeoutMs?: number;
  log?: (message: string) => void;
}

export interface QuitGuard {
  onBeforeQuit(event: { preventDefault(): void }): void;
  readonly state: 'running' | 'closing' | 'closed';
}

const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

export function createQuitGuard(deps: QuitGuardDeps): QuitGuard {
  let state: QuitGuard['state'] = 'running';
  return {
    get state() {
      return state;
    },
    onBeforeQuit(event) {
      if (state === 'closed') return;
      event.preventDefault();
      if (state === 'closing') return;
      state = 'closing';
      const timer = setTimeout(() => {
        if (state !== 'closing') return;
        state = 'closed';
        deps.log?.('Closing the app core took too long; exiting anyway.');
        deps.exit(1);
      }, deps.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
      deps
        .close()
        .catch((error: unknown) =>
          deps.log?.(`Closing the app core failed: ${error instanceof Error ? error.message : String(error)}`),
        )
        .finally(() => {
          clearTimeout(timer);
          if (state !== 'closing') return;
          state = 'closed';
          deps.quit();
        });
    },
  };
}
