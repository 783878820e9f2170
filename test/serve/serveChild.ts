/**
 * `miniharness serve` as its own process (electron/cli/main.ts under tsx), on a fixed listen port
 * so it can be killed and started again where a balancer expects it. Shared by the drain test and
 * the kill loop.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

/** Starts compile TypeScript (tsx) on a busy machine. */
const START_MS = 90_000;

/** Instances still running, so none outlives its test run. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export class ServeChild {
  private constructor(
    private readonly child: ChildProcess,
    private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
    readonly output: () => string,
  ) {}

  /** Writes `config` to `dir`/miniharness.json and starts serve on it; resolves once it listens. */
  static async start(config: object, dir: string, env: Record<string, string> = {}): Promise<ServeChild> {
    const file = join(dir, 'miniharness.json');
    writeFileSync(file, JSON.stringify(config));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(PROJECT_ROOT, 'electron', 'cli', 'main.ts'), 'serve', '--config', file],
      { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    live.add(child);
    let text = '';
    child.stdout?.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (text += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => {
        live.delete(child);
        resolve({ code, signal });
      }),
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not listen in time:\n${text}`)), START_MS);
      const check = (): void => {
        if (!/MiniHarness serve: listening on/.test(text)) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout?.on('data', check);
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`serve exited (${code ?? signal}) before listening:\n${text}`));
      });
    });
    return new ServeChild(child, exited, () => text);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends the signal (if still running) and waits until the process has exited. */
  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.child.kill(signal);
    return this.exited;
  }

  /** Signals without waiting (the drain is watched while it runs). */
  signal(signal: 'SIGTERM'): void {
    this.child.kill(signal);
  }

  get exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.exited;
  }
}
