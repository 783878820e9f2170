/**
 * The BUILT main bundle (out/main/main.js) as an installed app's stdio entry — `<app>
 * --gateway-stdio --client <name> --url …`, what an agent's config runs when the app has no
 * Node for bin/miniharness-gateway.mjs — in plain Node against the `electron` double, with the
 * app NOT running (nothing listens at the URL). The agent's `initialize` arrives on stdin as an
 * MCP client sends it; the entry answers it with a JSON-RPC error, says on stderr to open the
 * app (not to run `npm start`, a checkout's words: test/gateway/stdioEntry.test.ts) and exits,
 * without a window, a data folder or the single-instance lock. test/shell/mainRelay.test.ts
 * covers the same branch from the TypeScript source with the relay mocked.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { START_INSTALLED_APP } from '../../../electron/gateway/stdioProxy.js';
import { GATEWAY_STDIO_FLAG } from '../../../electron/gateway/stdioArgs.js';
import { GATEWAY_TOKEN_ENV } from '../../../shared/agents.js';
import { buildAppOnce } from '../support/webHost.js';
import type { DoubleRecord } from './support/builtMain.js';
import { MAIN_BUNDLE, REGISTER, TAG } from './support/builtMain.js';

/** A loopback port that was free a moment ago (bound on 0, then released): the app "not running". */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A child's output stream, line by line. */
interface Lines {
  readonly all: string[];
  /** Resolves when the stream has ended (the process closed it, or exited): every line is in. */
  readonly ended: Promise<void>;
  /** Resolves with the first line (already seen or still to come) that matches; rejects if the stream ends first. */
  next(match: (line: string) => boolean, what: string): Promise<string>;
}

function linesOf(stream: NodeJS.ReadableStream, describe: () => string): Lines {
  const all: string[] = [];
  const waiters: Array<{
    match: (line: string) => boolean;
    resolve: (line: string) => void;
    reject: (error: Error) => void;
    what: string;
  }> = [];
  let pending = '';
  let done = false;
  stream.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      all.push(line);
      for (const waiter of [...waiters]) {
        if (!waiter.match(line)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const ended = new Promise<void>((resolve) =>
    stream.once('end', () => {
      done = true;
      if (pending !== '') all.push(pending);
      for (const waiter of waiters.splice(0))
        waiter.reject(new Error(`${waiter.what}: the stream ended first.\n${describe()}`));
      resolve();
    }),
  );
  return {
    all,
    ended,
    next(match, what) {
      const seen = all.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      if (done) return Promise.reject(new Error(`${what}: the stream had ended.\n${describe()}`));
      return new Promise((resolve, reject) => waiters.push({ match, resolve, reject, what }));
    },
  };
}

test.describe("the built main bundle as the installed app's stdio entry (electron double)", () => {
  let dir: string;
  let child: ChildProcess | undefined;

  test.beforeAll(() => {
    buildAppOnce();
    expect(existsSync(MAIN_BUNDLE), `${MAIN_BUNDLE} (npm run build)`).toBe(true);
  });

  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mh-built-stdio-'));
  });

  test.afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  test('app not running: initialize gets a JSON-RPC error, stderr says to open MiniHarness Desktop (not npm start), exit 1, no window', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const userDataDir = join(dir, 'data');
    const env: NodeJS.ProcessEnv = { ...process.env, [GATEWAY_TOKEN_ENV]: 'mh-test-token-not-checked' };
    delete env['ELECTRON_RENDERER_URL'];
    delete env['NODE_OPTIONS'];
    // Chromium's --user-data-dir before the entry's flag (everything after it is the entry's own,
    // parsed strictly): if the relay touched a data folder, it would be this one.
    child = spawn(
      process.execPath,
      [
        '--import',
        REGISTER,
        MAIN_BUNDLE,
        `--user-data-dir=${userDataDir}`,
        GATEWAY_STDIO_FLAG,
        '--client',
        'Claude Desktop',
        '--url',
        url,
      ],
      { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child?.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const describe = (): string => `stdout:\n${stdout.all.join('\n')}\nstderr:\n${stderr.all.join('\n')}`;
    const stdout = linesOf(child.stdout as NodeJS.ReadableStream, describe);
    const stderr = linesOf(child.stderr as NodeJS.ReadableStream, describe);

    const sentence = `MiniHarness is not running: ${START_INSTALLED_APP}.`;
    expect(sentence).toBe('MiniHarness is not running: open MiniHarness Desktop.');

    await test.step("the agent's initialize, one line on stdin, as an MCP client over stdio sends it", () => {
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'stdio-agent', version: '1.0.0' },
        },
      };
      child?.stdin?.write(`${JSON.stringify(initialize)}\n`);
    });

    await test.step('stdout: the initialize answered with a JSON-RPC error carrying the sentence', async () => {
      const answer = await stdout.next((line) => !line.startsWith(TAG), 'a JSON-RPC message on stdout');
      expect(JSON.parse(answer)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: sentence } });
    });

    await test.step("stderr: the installed app's sentence, not a checkout's npm start", async () => {
      await stderr.next((line) => line.includes(START_INSTALLED_APP), `a stderr line with "${START_INSTALLED_APP}"`);
    });

    await test.step('it ends by itself (app.exit(1)), stdin still open', async () => {
      const exit = await exited;
      expect(exit, describe()).toEqual({ code: 1, signal: null });
      // Both pipes drained: every line the process wrote is in.
      await Promise.all([stdout.ended, stderr.ended]);
      expect(
        stderr.all.filter((line) => line !== ''),
        describe(),
      ).toEqual([sentence]);
      expect(stderr.all.join('\n')).not.toContain('npm start');
      const messages = stdout.all.filter((line) => line !== '' && !line.startsWith(TAG));
      expect(messages, 'exactly one JSON-RPC message on stdout').toHaveLength(1);
    });

    await test.step("the double's records: no window, no ready, no lock, no data folder; only app.exit(1)", () => {
      const records = stdout.all
        .filter((line) => line.startsWith(TAG))
        .map((line) => JSON.parse(line.slice(TAG.length)) as DoubleRecord);
      expect(
        records.filter((r) => r.kind === 'window'),
        'BrowserWindows',
      ).toEqual([]);
      expect(
        records.filter((r) => r.kind === 'ready'),
        'app ready',
      ).toEqual([]);
      expect(records.filter((r) => r.kind === 'unhandled-rejection').map((r) => r['message'])).toEqual([]);
      const calls = records.filter((r) => r.kind === 'call').map((r) => ({ api: r['api'], args: r['args'] }));
      expect(calls).toEqual([{ api: 'app.exit', args: [1] }]);
      expect(records.find((r) => r.kind === 'exit')).toMatchObject({ code: 1, via: 'app.exit' });
      expect(existsSync(userDataDir), `${userDataDir} (the relay has no data folder)`).toBe(false);
    });
  });
});
