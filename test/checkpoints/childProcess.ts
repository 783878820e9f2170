import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import type { ChildMessage } from './childProtocol.js';

const PROJECT_ROOT = new URL('../..', import.meta.url).pathname;

/** A child process run with tsx, talking over IPC (ChildMessage); the cross-process tests' handle on it. */
export class Child {
  readonly process: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly #messages: ChildMessage[] = [];
  readonly #waiters = new Set<() => void>();
  #stderr = '';
  #closed = false;

  constructor(script: string, args: string[]) {
    this.process = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.process.stderr?.on('data', (chunk: Buffer) => (this.#stderr += chunk.toString()));
    this.process.on('message', (message) => {
      this.#messages.push(message as ChildMessage);
      for (const wake of this.#waiters) wake();
    });
    // 'close', not 'exit': it comes after the IPC channel and stderr are drained, so no message is lost.
    this.exited = new Promise((resolve) =>
      this.process.on('close', (code, signal) => {
        this.#closed = true;
        resolve({ code, signal });
        for (const wake of this.#waiters) wake();
      }),
    );
  }

  /** Resolves with the first message of `type`; fails on an error message or an early exit. */
  async waitFor<T extends ChildMessage['type']>(type: T): Promise<Extract<ChildMessage, { type: T }>> {
    for (;;) {
      const found = this.#messages.find((m) => m.type === type || m.type === 'error');
      if (found?.type === 'error') throw new Error(`child failed: ${found.message}`);
      if (found) return found as Extract<ChildMessage, { type: T }>;
      if (this.#closed) {
        throw new Error(
          `child exited (${this.process.exitCode ?? this.process.signalCode}) before "${type}". stderr:\n${this.#stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          resolve();
        };
        this.#waiters.add(wake);
      });
    }
  }

  get errors(): string[] {
    return this.#messages.flatMap((m) => (m.type === 'error' ? [m.message] : []));
  }
}

/** Children of one script started by a test; `stopAll` kills (SIGKILL) those still running and waits for each to exit. */
export function childPool(script: string): { start(args: string[]): Child; stopAll(): Promise<void> } {
  const children: Child[] = [];
  return {
    start(args) {
      const child = new Child(script, args);
      children.push(child);
      return child;
    },
    async stopAll() {
      for (const child of children.splice(0)) {
        if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
        await child.exited;
      }
    },
  };
}
