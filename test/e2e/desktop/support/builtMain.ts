/**
 * Runs the BUILT main bundle (out/main/main.js) in a plain Node child process against the
 * `electron` double (test/doubles/electron/electron-double/), reads what the double records and
 * drives it: renderer invokes with genuine or forged senders, the session's header hook, quit.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../support/webHost.js';

export const MAIN_BUNDLE = join(ROOT, 'out', 'main', 'main.js');
export const PRELOAD_BUNDLE = join(ROOT, 'out', 'preload', 'preload.cjs');
export const RENDERER_INDEX = join(ROOT, 'out', 'renderer', 'index.html');
/** `node --import <this>` makes `electron` the double. */
export const REGISTER = pathToFileURL(
  join(ROOT, 'test', 'doubles', 'electron', 'electron-double', 'register.mjs'),
).href;
/** The prefix of the double's record lines on stdout. */
export const TAG = '@@electron-double ';

export interface DoubleRecord {
  kind: string;
  seq: number;
  /** Whether app.whenReady() had resolved when it happened. */
  ready: boolean;
  [key: string]: unknown;
}

export type SenderKind = 'genuine' | 'wrong-url' | 'subframe' | 'other-contents' | 'no-frame';

export interface BuiltMain {
  readonly records: readonly DoubleRecord[];
  /** Resolves with the first record (already seen or still to come) that matches. */
  waitFor(match: (record: DoubleRecord) => boolean, what: string): Promise<DoubleRecord>;
  /** The invoke handler's answer, as the preload's ipcRenderer.invoke would get it. */
  invoke(sender: SenderKind, channel: string, ...args: unknown[]): Promise<unknown>;
  headers(url: string): Promise<unknown>;
  quit(): void;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  kill(): void;
}

export function startBuiltMain(options: { userDataDir: string; workspaceDir: string }): BuiltMain {
  const env: NodeJS.ProcessEnv = { ...process.env, MINIHARNESS_GATEWAY_PORT: '0' };
  delete env['ELECTRON_RENDERER_URL'];
  delete env['NODE_OPTIONS'];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      REGISTER,
      MAIN_BUNDLE,
      `--user-data-dir=${options.userDataDir}`,
      `--workspace=${options.workspaceDir}`,
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  const records: DoubleRecord[] = [];
  const waiters: Array<{ match: (record: DoubleRecord) => boolean; resolve: (record: DoubleRecord) => void }> = [];
  let stderr = '';
  let pending = '';
  let ended = false;
  const exitWaiters: Array<(reason: string) => void> = [];

  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (!line.startsWith(TAG)) continue;
      const record = JSON.parse(line.slice(TAG.length)) as DoubleRecord;
      records.push(record);
      for (const waiter of [...waiters]) {
        if (!waiter.match(record)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(record);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = true;
      for (const fail of exitWaiters.splice(0)) fail(`the main process exited (${code ?? signal})`);
      resolve({ code, signal });
    }),
  );

  function waitFor(match: (record: DoubleRecord) => boolean, what: string): Promise<DoubleRecord> {
    const seen = records.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      if (ended) return reject(new Error(`${what}: the main process had exited.\n${stderr}`));
      waiters.push({ match, resolve });
      exitWaiters.push((reason) => reject(new Error(`${what}: ${reason} first.\n${stderr}`)));
    });
  }

  let nextId = 1;
  async function command(kind: string, resultKind: string, fields: Record<string, unknown>): Promise<unknown> {
    const id = nextId++;
    const answer = waitFor(
      (r) => (r.kind === resultKind || r.kind === 'command-error') && r['id'] === id,
      `${kind} #${id}`,
    );
    child.send({ kind, id, ...fields });
    const record = await answer;
    if (record.kind === 'command-error') throw new Error(`${kind} failed in the double: ${String(record['message'])}`);
    return record['result'];
  }

  return {
    records,
    waitFor,
    invoke: (sender, channel, ...args) => command('invoke', 'invoke-result', { sender, args: [channel, ...args] }),
    headers: (url) => command('headers', 'headers-result', { url }),
    quit: () => void child.send({ kind: 'quit' }),
    exited,
    stderr: () => stderr,
    kill: () => {
      if (!ended) child.kill('SIGKILL');
    },
  };
}
