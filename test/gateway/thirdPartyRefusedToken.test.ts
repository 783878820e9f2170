/**
 * A third-party client given a wrong or revoked static token: `mcp-remote` (0.15.1, a stdio→HTTP
 * proxy nobody here wrote), spawned with `--header "Authorization: Bearer <token>"` against the
 * real gateway over a scratch data folder. The gateway refuses the token with 401 `invalid_token`,
 * MiniHarness's sentence as `error_description`, and `resource_metadata`; mcp-remote then
 * discovers MiniHarness's authorization server, registers, and sends the browser to the gateway's
 * own `/authorize` for the gateway's `/mcp` — MiniHarness's sign-in, not "Dynamic Client
 * Registration rejected" or a 404 on a probe.
 *
 * Its browser is a script (BROWSER, which the `open` package's xdg-open honours with no desktop)
 * that posts the URL to a loopback server of this test; its config and HOME are in the scratch
 * folder. What mcp-remote shows: without `--debug` it never prints the challenge's
 * error_description (its startup probe only reads the status, and the discovery logs the header
 * only through debugLog), so the sentence reaches its stderr only with `--debug`, verbatim in the
 * "Received 401 with WWW-Authenticate header" line. Asserted: in both modes, MiniHarness's own
 * sign-in starts; with `--debug`, the sentence reaches stderr. (Its absence without `--debug` is
 * mcp-remote's behaviour, not ours, and is not asserted.)
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUSED_TOKEN_SENTENCE } from '../../electron/gateway/oauth/signIn.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { startGatewayApp } from './support.js';

const MCP_REMOTE = join(PROJECT_ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
const WRONG_TOKEN = 'mh_this-token-was-never-issued-by-miniharness';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The browser mcp-remote opens: each URL it is given, in order, as they come. */
class BrowserRecorder {
  readonly urls: string[] = [];
  private waiters: Array<(url: string) => void> = [];
  private readonly server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      this.urls.push(body);
      const waiters = this.waiters;
      this.waiters = [];
      for (const resolve of waiters) resolve(body);
      res.end();
    });
  });
  endpoint = '';
  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/`;
  }
  /** The next URL opened from now on. */
  next(): Promise<string> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** mcp-remote's stderr, and a wait for text in it that fails as soon as the process ends. */
class Stderr {
  text = '';
  private readonly checks = new Set<() => void>();
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.text += chunk;
      for (const check of this.checks) check();
    });
  }
  waitFor(needle: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.checks.delete(check);
        this.child.off('exit', exited);
      };
      const check = (): void => {
        if (!this.text.includes(needle)) return;
        done();
        resolve();
      };
      const exited = (code: number | null): void => {
        done();
        reject(
          new Error(`mcp-remote exited (${code}) before printing ${JSON.stringify(needle)}; stderr:\n${this.text}`),
        );
      };
      this.checks.add(check);
      this.child.once('exit', exited);
      check();
    });
  }
}

describe('mcp-remote with a static token the gateway refuses', () => {
  const scratch = scratchDir('mh-gateway-third-party-refused-');
  let app: GatewayApp;
  let revokedToken: string;
  const browser = new BrowserRecorder();
  let browserScript: string;
  let run = 0;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    const agent = await app.createAgent('Copied token');
    revokedToken = agent.token;
    await app.call('agents.revoke', { id: agent.id });
    await browser.start();
    mkdirSync(join(scratch.dir, 'bin'));
    browserScript = join(scratch.dir, 'bin', 'browser');
    writeFileSync(
      browserScript,
      `#!${process.execPath}\nawait fetch(process.env.BROWSER_RECORDER, { method: 'POST', body: process.argv[2] });\n`,
    );
    chmodSync(browserScript, 0o755);
  }, 30_000);

  afterAll(async () => {
    await browser.close();
    await app?.close();
    scratch.cleanup();
  });

  /** Spawns mcp-remote with the token, in its own scratch HOME and config folder, on a free callback port. */
  async function spawnMcpRemote(
    token: string,
    debug: boolean,
  ): Promise<{ child: ChildProcessWithoutNullStreams; stderr: Stderr }> {
    const home = join(scratch.dir, `run-${++run}`);
    mkdirSync(home);
    const callbackPort = await freePort();
    const child = spawn(
      process.execPath,
      [
        MCP_REMOTE,
        app.url.href,
        String(callbackPort),
        '--header',
        `Authorization: Bearer ${token}`,
        ...(debug ? ['--debug'] : []),
      ],
      {
        cwd: home,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          MCP_REMOTE_CONFIG_DIR: join(home, 'mcp-auth'),
          BROWSER: browserScript,
          BROWSER_RECORDER: browser.endpoint,
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    return { child, stderr: new Stderr(child) };
  }

  async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  }

  /** The browser was sent to MiniHarness's sign-in for this gateway, by a client the gateway registered. */
  function expectMiniHarnessSignIn(opened: string, stderr: string): void {
    const url = new URL(opened);
    expect(url.origin).toBe(app.url.origin);
    expect(url.pathname).toBe('/authorize');
    expect(new URL(url.searchParams.get('resource') ?? '').href).toBe(app.url.href);
    expect(url.searchParams.get('client_id')).toBeTruthy();
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(stderr).toContain(`Discovered authorization server: ${app.url.origin}`);
    expect(stderr).not.toMatch(
      /Dynamic Client Registration rejected|requires a TTY|status 404|\(404\)|HTTP 404|Not Found|Fatal error/,
    );
  }

  it.each([
    ['a wrong token', () => WRONG_TOKEN],
    ['a revoked agent’s token', () => revokedToken],
  ])(
    'given %s, it starts MiniHarness’s sign-in: the browser goes to the gateway’s /authorize for its /mcp',
    async (_label, token) => {
      const opened = browser.next();
      const { child, stderr } = await spawnMcpRemote(token(), false);
      try {
        const url = await opened;
        await stderr.waitFor('Please authorize this client by visiting:');
        expectMiniHarnessSignIn(url, stderr.text);
        expect(stderr.text).toContain('Using custom headers: Authorization');
        // The token itself is never echoed.
        expect(stderr.text).not.toContain(token());
      } finally {
        await stop(child);
      }
    },
  );

  it.each([
    ['a wrong token', () => WRONG_TOKEN],
    ['a revoked agent’s token', () => revokedToken],
  ])(
    'given %s with --debug, MiniHarness’s sentence reaches its stderr as the challenge’s error_description',
    async (_label, token) => {
      const opened = browser.next();
      const { child, stderr } = await spawnMcpRemote(token(), true);
      try {
        await stderr.waitFor(`error_description="${REFUSED_TOKEN_SENTENCE}"`);
        expect(stderr.text).toContain('Received 401 with WWW-Authenticate header');
        expect(stderr.text).toContain('error="invalid_token"');
        expectMiniHarnessSignIn(await opened, stderr.text);
      } finally {
        await stop(child);
      }
    },
  );
});
