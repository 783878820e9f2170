/**
 * One `miniharness serve` process for a browser test: its configuration written to the folder,
 * started from the sources (tsx) with the given environment, and waited for until it says it
 * listens; its output kept (the printed bootstrap link is read from it).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

export interface ServeInstance {
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  readonly output: string;
  /** SIGTERM, and waits for its exit. */
  stop(): Promise<void>;
}

export async function startServeInstance(
  dir: string,
  config: Record<string, unknown>,
  env: Record<string, string>,
): Promise<ServeInstance> {
  const file = join(dir, 'miniharness.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'electron', 'cli', 'main.ts'), 'serve', '--config', file],
    { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await expect.poll(() => /listening on/.test(output), { timeout: 60_000 }).toBe(true);
  return {
    child,
    get output() {
      return output;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
