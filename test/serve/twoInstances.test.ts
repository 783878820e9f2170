/**
 * Two `miniharness serve` instances on one PostgreSQL database (the storage of issue 35): a call
 * made through instance A by the command line's token runs once; instance B's viewer finds it in
 * History under the name of who made it, and replaying it on B runs nothing (each instance runs its
 * own copy of a stdio server whose tool appends a line per execution to one shared file).
 * (No load balancer yet: the nginx/HAProxy deployment test of issue 36 is still to come.)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallOutcome } from '../../shared/contract.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import { buildSideEffectServer } from '../restart/restartSoak.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { TestServe } from './serveHarness.js';
import { sideEffectServerConfig, startTestServe } from './serveHarness.js';

const OPS = 'two-instances-ops-token-0123456789';
const DASH = 'two-instances-dash-token-0123456789';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describePostgres('two serve instances on one PostgreSQL', () => {
  const scratch = scratchDir('mh-serve-pg-');
  const effects = join(scratch.dir, 'effects.jsonl');
  let database: TestDatabase;
  let a: TestServe;
  let b: TestServe;

  beforeAll(async () => {
    await buildSideEffectServer();
    database = await createTestDatabase('serve');
    const shared = {
      databaseUrl: database.url,
      apiTokens: [
        { name: 'ops', role: 'admin' as const, sha256: sha256(OPS) },
        { name: 'dash', role: 'viewer' as const, sha256: sha256(DASH) },
      ],
      ...sideEffectServerConfig(effects),
    };
    a = await startTestServe(join(scratch.dir, 'a'), undefined, shared);
    b = await startTestServe(join(scratch.dir, 'b'), undefined, shared);
    // Both copies of the tool are up, so a run on B would be counted.
    for (const serve of [a, b]) {
      const client = await BridgeClient.connect(serve.port, { token: OPS });
      try {
        await waitFor(async () => {
          const reply = await client.call('tools.list', {});
          return (
            reply.ok && (reply.result as { tools: Array<{ name: string }> }).tools.some((t) => t.name === 'effect')
          );
        }, 60_000);
      } finally {
        client.close();
      }
    }
  }, 180_000);
  afterAll(async () => {
    await a?.serving.shutdown();
    await b?.serving.shutdown();
    await database?.drop();
    scratch.cleanup();
  });

  const effectLines = (key: string): number =>
    existsSync(effects)
      ? readFileSync(effects, 'utf8')
          .split('\n')
          .filter((l) => l.includes(`"key":"${key}"`)).length
      : 0;

  it('a call made on A is in B’s History with who made it; replaying it on B runs nothing', async () => {
    const ops = await BridgeClient.connect(a.port, { token: OPS });
    const dash = await BridgeClient.connect(b.port, { token: DASH });
    try {
      const made = await ops.call('tools.call', {
        name: 'effect',
        serverId: 'fx',
        args: { key: 'shared-1' },
        callId: 'shared-1',
      });
      expect(made.ok, JSON.stringify(made)).toBe(true);
      expect(effectLines('shared-1')).toBe(1);
      const { sessionId } = made.ok ? (made.result as CallOutcome) : { sessionId: '' };
      const page = await dash.call('history.page', { sessionId, limit: 10 });
      expect(page).toMatchObject({
        ok: true,
        result: { records: [{ callId: 'shared-1', status: 'completed', userId: 'CLI (ops)' }] },
      });
      // The viewer may read it but not replay it (an approver's), and B's admin replays without running.
      expect(await dash.call('history.replay', { sessionId, callId: 'shared-1' })).toMatchObject({
        ok: false,
        error: { code: 'role_forbidden' },
      });
      const opsOnB = await BridgeClient.connect(b.port, { token: OPS });
      try {
        expect(await opsOnB.call('history.replay', { sessionId, callId: 'shared-1' })).toMatchObject({
          ok: true,
          result: { replayed: true },
        });
        // The replay answered from the checkpoint: the tool still ran once, on A.
        expect(effectLines('shared-1')).toBe(1);
      } finally {
        opsOnB.close();
      }
    } finally {
      ops.close();
      dash.close();
    }
  }, 60_000);
});
