/**
 * kill -9 of the instance that owns a call, in a loop (issue 36): two `miniharness serve`
 * processes on one PostgreSQL behind Debian's nginx; the caller talks to the balancer's one
 * address over the bridge (the CLI's and the page's path; their calls share one session through
 * PostgreSQL's app metadata). Each round: a call that completes, then a call that acts (its line
 * is in the side-effect file) and never answers; the instance that runs it (named by the line's
 * tag) is killed with SIGKILL; the caller retries the same callId through the balancer — the
 * other instance answers "still running, or its result is unknown" (in_progress) without running
 * it; every completed callId sent again replays its one result; the killed instance is started
 * again on its data folder and port. At the end, executions per callId are counted from the
 * file: none ran twice. The figures are printed for the note.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DispatchResult } from '../../shared/bridge.js';
import type { CallOutcome } from '../../shared/contract.js';
import { freePort } from '../gateway/ports.js';
import { PROJECT_ROOT, sandboxWritingTo, scratchDir, waitFor } from '../helpers/fixtures.js';
import { BUILT_SIDE_EFFECT_FIXTURE, SERVER_ID, buildSideEffectServer, serverReady } from '../restart/restartSoak.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { Nginx } from './nginx.js';
import { describeBalanced, startNginx, webBalancerConf } from './nginx.js';
import { ServeChild } from './serveChild.js';

const ROUNDS = 10;
/** Only a wrong answer (a cut-off call run again: it never answers) waits this long. */
const RESEND_DEADLINE_MS = 5_000;
const OPS = randomBytes(24).toString('base64url');
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

interface Instance {
  name: 'A' | 'B';
  dir: string;
  port: number;
  config: object;
  process: ServeChild;
}

describeBalanced('kill -9 of the owning instance mid-call, in a loop, behind nginx', () => {
  const scratch = scratchDir('mh-serve-killloop-');
  const effects = join(scratch.dir, 'fx', 'effects.jsonl');
  let database: TestDatabase;
  let nginx: Nginx | undefined;
  let balancer: URL;
  const instances: Instance[] = [];

  const executions = (): Array<{ key: string; tag?: string }> =>
    existsSync(effects)
      ? readFileSync(effects, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { key: string; tag?: string })
      : [];

  /** A bridge through the balancer, as the CLI or a page would have. */
  async function viaBalancer(): Promise<BridgeClient> {
    const client = await BridgeClient.connect(Number(balancer.port), {
      token: OPS,
      host: balancer.host,
      origin: balancer.origin,
    });
    client.ws.on('error', () => undefined); // its instance may be killed under it
    return client;
  }

  /** Starts (or starts again) an instance; resolves once its copy of the fixture server is ready. */
  async function start(instance: Omit<Instance, 'process'> & { process?: ServeChild }): Promise<Instance> {
    // The database URL comes from the environment, as an operator's secret would.
    const process = await ServeChild.start(instance.config, instance.dir, { MINIHARNESS_DATABASE_URL: database.url });
    const direct = await BridgeClient.connect(instance.port, {
      token: OPS,
      host: balancer.host,
      origin: balancer.origin,
    });
    try {
      await serverReady(direct);
    } finally {
      direct.close();
    }
    return Object.assign(instance, { process });
  }

  beforeAll(async () => {
    await buildSideEffectServer();
    mkdirSync(join(scratch.dir, 'fx'));
    database = await createTestDatabase('killloop');
    balancer = new URL(`http://127.0.0.1:${await freePort()}`);
    const ports = [await freePort(), await freePort()];
    for (const [i, name] of (['A', 'B'] as const).entries()) {
      const dir = join(scratch.dir, name);
      mkdirSync(dir);
      const port = ports[i] as number;
      const config = {
        dataDir: join(dir, 'data'),
        workspaceDir: join(dir, 'workspace'),
        listen: { host: '127.0.0.1', port },
        gateway: { port: 0 },
        publicUrl: balancer.origin,
        trustedProxies: ['127.0.0.1'],
        apiTokens: [{ name: 'ops', role: 'admin', sha256: sha256(OPS) }],
        servers: [
          {
            mode: 'create',
            config: {
              id: SERVER_ID,
              name: 'Side effects',
              transport: 'stdio',
              command: process.execPath,
              args: [BUILT_SIDE_EFFECT_FIXTURE],
              cwd: PROJECT_ROOT,
              env: { SIDE_EFFECT_FILE: effects, SIDE_EFFECT_TAG: name },
              sandbox: sandboxWritingTo({ SIDE_EFFECT_FILE: effects }),
            },
          },
        ],
        rules: [{ serverId: SERVER_ID, toolName: 'effect', level: 'ALLOW' }],
      };
      instances.push(await start({ name, dir, port, config }));
    }
    nginx = startNginx(
      join(scratch.dir, 'nginx'),
      webBalancerConf(join(scratch.dir, 'nginx'), Number(balancer.port), ports),
    );
    await waitFor(async () => (await fetch(new URL('/healthz', balancer)).catch(() => undefined))?.ok === true, 15_000);
  }, 240_000);
  afterAll(async () => {
    nginx?.stop();
    for (const instance of instances) await instance.process.stop('SIGKILL');
    await database?.drop();
    scratch.cleanup();
  });

  /** The calls' session (the GUI's and CLI's, one for every instance). */
  async function sessionOf(client: BridgeClient): Promise<string | undefined> {
    const reply = await client.call('history.sessions', {});
    return reply.ok ? (reply.result as { current: string }).current : undefined;
  }

  const call = (client: BridgeClient, key: string, hold = false, timeoutMs?: number): Promise<DispatchResult> =>
    client.call('tools.call', {
      name: 'effect',
      serverId: SERVER_ID,
      args: { key, ...(hold ? { hold: true } : {}) },
      callId: key,
      ...(timeoutMs ? { timeoutMs } : {}),
    });

  it(`no callId runs twice over ${ROUNDS} kills of the owner; the retry through the balancer says in progress`, async () => {
    const completed = new Map<string, unknown>();
    const interrupted: string[] = [];
    const kills = { A: 0, B: 0 };
    let resends = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Two connections through the balancer (round robin: one on each instance); the held call goes on
      // the first or the second by turns, so the kills fall on both instances.
      const pair = [await viaBalancer(), await viaBalancer()];
      const client = pair[round % 2] as BridgeClient;
      const done = `loop-${round}-done`;
      const reply = await call(client, done);
      expect(reply, JSON.stringify(reply)).toMatchObject({ ok: true });
      if (reply.ok) completed.set(done, (reply.result as CallOutcome).result);

      const held = `loop-${round}-held`;
      void call(client, held, true);
      await waitFor(() => executions().some((e) => e.key === held), 60_000);
      const owner = instances.find((i) => i.name === executions().find((e) => e.key === held)?.tag);
      if (!owner) throw new Error(`no instance named in the line of ${held}`);
      expect((await owner.process.stop('SIGKILL')).signal).toBe('SIGKILL');
      kills[owner.name] += 1;
      interrupted.push(held);
      for (const c of pair) c.close();

      // The caller retries through the balancer: the other instance answers, and runs nothing again.
      const retry = await viaBalancer();
      try {
        for (const key of interrupted) {
          const again = await call(retry, key, true, RESEND_DEADLINE_MS);
          resends += 1;
          expect(again.ok ? 'a result' : again.error.code, `${key}: ${JSON.stringify(again)}`).toBe('in_progress');
        }
        for (const [key, result] of completed) {
          const again = await call(retry, key);
          resends += 1;
          expect(again, key).toMatchObject({ ok: true, result: { replayed: true } });
          if (again.ok) expect((again.result as CallOutcome).result).toEqual(result);
        }
      } finally {
        retry.close();
      }
      await start(owner);
    }

    const perKey = new Map<string, number>();
    for (const e of executions()) perKey.set(e.key, (perKey.get(e.key) ?? 0) + 1);
    const duplicates = [...perKey.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
    console.log(
      `kill loop: rounds ${ROUNDS}, kills ${kills.A + kills.B} (A ${kills.A}, B ${kills.B}), calls ${completed.size + interrupted.length} ` +
        `(completed ${completed.size}, interrupted ${interrupted.length}), re-sends ${resends}, executions ${executions().length}, duplicates ${duplicates}`,
    );
    expect(duplicates).toBe(0);
    expect(perKey.size).toBe(completed.size + interrupted.length);
    expect(kills.A > 0 && kills.B > 0, JSON.stringify(kills)).toBe(true);

    // Once the owner's lease has expired (nobody renews it), the retry says the result is unknown; a
    // person resolves it in History (on whichever instance), and the retry then gets that stored outcome.
    const first = interrupted[0] as string;
    const client = await viaBalancer();
    try {
      await waitFor(
        async () => {
          const again = await call(client, first, true, RESEND_DEADLINE_MS);
          return !again.ok && /lease expired/.test(again.error.message);
        },
        60_000,
        1_000,
      );
      const resolved = await client.call('history.resolve', {
        sessionId: await sessionOf(client),
        callId: first,
        resolution: { status: 'completed', resultText: 'checked on the remote side: written once' },
      });
      expect(resolved, JSON.stringify(resolved)).toMatchObject({ ok: true });
      const stored = await call(client, first, true, RESEND_DEADLINE_MS);
      expect(stored, JSON.stringify(stored)).toMatchObject({ ok: true, result: { replayed: true } });
      expect(JSON.stringify(stored)).toContain('checked on the remote side: written once');
    } finally {
      client.close();
    }
    expect(executions().filter((e) => e.key === first)).toHaveLength(1);
  }, 900_000);
});
