/**
 * Two `miniharness serve` instances on one PostgreSQL behind nginx (Debian's, started by the
 * test; skipped with a line when nginx or PostgreSQL is absent — .ci/run installs both, and with
 * MINIHARNESS_TEST_POSTGRES_REQUIRED=1 their absence fails the run). The
 * command line talks to the balancer's one address: its calls land on both instances and are in
 * one History; when instance A shuts down, the balancer's next calls go to B and succeed.
 * (A first step of issue 36's deployment test: agents of both eras and kill -9 are still to come.)
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClientCommand } from '../../electron/cli/commands.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { TestServe } from './serveHarness.js';
import { startTestServe } from './serveHarness.js';

const NGINX = '/usr/sbin/nginx';
const OPS = 'balancer-ops-token-0123456789abcdef';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function nginxConf(dir: string, port: number, upstreams: number[]): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((k) => `${k}_temp_path ${join(dir, k)};`)
    .join('\n  ');
  return `daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')};
events {}
http {
  log_format upstream '$upstream_addr $request_uri';
  access_log ${join(dir, 'access.log')} upstream;
  ${temp}
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  upstream miniharness { ${upstreams.map((p) => `server 127.0.0.1:${p} max_fails=1 fail_timeout=30s;`).join(' ')} }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://miniharness;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_next_upstream error timeout http_503;
    }
  }
}
`;
}

const NO_NGINX = 'nginx is not installed (apt-get install nginx-light)';
// CI (MINIHARNESS_TEST_POSTGRES_REQUIRED=1) installs nginx: its absence there fails the run; a developer sees one skipped line.
const describeBalanced = existsSync(NGINX)
  ? describePostgres
  : process.env.MINIHARNESS_TEST_POSTGRES_REQUIRED === '1'
    ? (name: string) =>
        describe(name, () =>
          it('needs nginx (MINIHARNESS_TEST_POSTGRES_REQUIRED=1)', () => {
            throw new Error(`${NO_NGINX}, but this run requires the balancer test.`);
          }),
        )
    : (name: string) => it.skip(`${name}: ${NO_NGINX}`, () => undefined);

describeBalanced('two serve instances on one PostgreSQL behind nginx', () => {
  const scratch = scratchDir('mh-serve-lb-');
  let database: TestDatabase;
  let a: TestServe;
  let b: TestServe;
  let nginx: ChildProcess;
  let balancer: string;

  beforeAll(async () => {
    database = await createTestDatabase('balancer');
    const port = await freePort();
    balancer = `http://127.0.0.1:${port}`;
    const shared = {
      databaseUrl: database.url,
      publicUrl: balancer,
      trustedProxies: ['127.0.0.1'],
      apiTokens: [{ name: 'ops', role: 'admin' as const, sha256: sha256(OPS) }],
    };
    a = await startTestServe(join(scratch.dir, 'a'), undefined, shared);
    b = await startTestServe(join(scratch.dir, 'b'), undefined, shared);
    const dir = join(scratch.dir, 'nginx');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'nginx.conf'), nginxConf(dir, port, [a.port, b.port]));
    nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
    await waitFor(async () => (await fetch(`${balancer}/healthz`).catch(() => undefined))?.ok === true, 15_000);
  }, 90_000);
  afterAll(async () => {
    nginx?.kill('SIGQUIT');
    await a?.serving.shutdown();
    await b?.serving.shutdown();
    await database?.drop();
    scratch.cleanup();
  });

  async function cliCall(callId: string): Promise<number> {
    let err = '';
    const code = await runClientCommand(
      'call',
      ['local', 'list_directory', '--args', '{"path":"."}'],
      { MINIHARNESS_URL: balancer, MINIHARNESS_TOKEN: OPS },
      () => undefined,
      (t) => (err += t),
    );
    expect(err, callId).toBe('');
    return code;
  }

  async function countOn(serve: TestServe): Promise<number> {
    const client = await BridgeClient.connect(serve.port, {
      token: OPS,
      host: new URL(balancer).host,
      origin: balancer,
    });
    try {
      const reply = await client.call('history.sessions', {});
      const { sessions } = reply.ok ? (reply.result as { sessions: Array<{ count: number }> }) : { sessions: [] };
      return sessions.reduce((sum, s) => sum + s.count, 0);
    } finally {
      client.close();
    }
  }

  it('spreads the CLI’s calls over both instances into one History, and goes on with B when A shuts down', async () => {
    for (let i = 0; i < 4; i++) expect(await cliCall(`spread-${i}`)).toBe(0);
    // Both instances see the same four calls (one History), in one session: the GUI's and CLI's session id is
    // in PostgreSQL's app metadata, shared by the instances (a callId sent to both is one call: sameCallId.test.ts).
    expect([await countOn(a), await countOn(b)]).toEqual([4, 4]);
    const sessions = await (async () => {
      const client = await BridgeClient.connect(b.port, { token: OPS, host: new URL(balancer).host, origin: balancer });
      const reply = await client.call('history.sessions', {});
      client.close();
      return reply.ok ? (reply.result as { sessions: unknown[] }).sessions.length : 0;
    })();
    expect(sessions).toBe(1);
    // Both instances made some: the balancer's log names the instance each of the CLI's requests went to
    // (a request is logged when it ends, a moment after the CLI is done with it: waited for).
    const upstreams = (): Set<string | undefined> =>
      new Set(
        readFileSync(join(scratch.dir, 'nginx', 'access.log'), 'utf8')
          .split('\n')
          .filter((line) => line !== '' && !line.includes('/healthz'))
          .map((line) => line.split(' ')[0]),
      );
    const both = [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`];
    await waitFor(() => both.every((u) => upstreams().has(u)), 15_000);
    expect(upstreams()).toEqual(new Set(both));

    await a.serving.shutdown();
    for (let i = 0; i < 3; i++) expect(await cliCall(`after-${i}`)).toBe(0);
    expect(await countOn(b)).toBe(7);
  }, 90_000);
});
