/**
 * Two `miniharness serve` instances on one PostgreSQL behind nginx (Debian's, started by the
 * test; skipped with a line when nginx or PostgreSQL is absent — .ci/run installs both, and with
 * MINIHARNESS_TEST_POSTGRES_REQUIRED=1 their absence fails the run). The
 * command line talks to the balancer's one address: its calls land on both instances and are in
 * one History; when instance A shuts down, the balancer's next calls go to B and succeed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runClientCommand } from '../../electron/cli/commands.js';
import { freePort } from '../gateway/ports.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { Nginx } from './nginx.js';
import { describeBalanced, startNginx, webBalancerConf } from './nginx.js';
import type { TestServe } from './serveHarness.js';
import { opsToken, startTestServe } from './serveHarness.js';

const OPS = opsToken();

describeBalanced('two serve instances on one PostgreSQL behind nginx', () => {
  const scratch = scratchDir('mh-serve-lb-');
  let database: TestDatabase;
  let a: TestServe;
  let b: TestServe;
  let nginx: Nginx | undefined;
  let balancer: string;

  beforeAll(async () => {
    database = await createTestDatabase('balancer');
    const port = await freePort();
    balancer = `http://127.0.0.1:${port}`;
    const shared = {
      databaseUrl: database.url,
      publicUrl: balancer,
      trustedProxies: ['127.0.0.1'],
      apiTokens: [{ name: 'ops', role: 'admin' as const, sha256: OPS.sha256 }],
    };
    a = await startTestServe(join(scratch.dir, 'a'), undefined, shared);
    b = await startTestServe(join(scratch.dir, 'b'), undefined, shared);
    const dir = join(scratch.dir, 'nginx');
    nginx = startNginx(dir, webBalancerConf(dir, port, [a.port, b.port]));
    await waitFor(async () => (await fetch(`${balancer}/healthz`).catch(() => undefined))?.ok === true, 15_000);
  }, 90_000);
  afterAll(async () => {
    nginx?.stop();
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
      { MINIHARNESS_URL: balancer, MINIHARNESS_TOKEN: OPS.token },
      () => undefined,
      (t) => (err += t),
    );
    expect(err, callId).toBe('');
    return code;
  }

  async function countOn(serve: TestServe): Promise<number> {
    const client = await BridgeClient.connect(serve.port, {
      token: OPS.token,
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
      const client = await BridgeClient.connect(b.port, {
        token: OPS.token,
        host: new URL(balancer).host,
        origin: balancer,
      });
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
