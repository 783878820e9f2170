/**
 * Two `miniharness serve` instances on one PostgreSQL database (the storage of issue 35): a call
 * made through instance A by the command line's token runs once; instance B's viewer finds it in
 * History under the name of who made it, and replaying it on B runs nothing.
 * (No load balancer yet: the nginx/HAProxy deployment test of issue 36 is still to come.)
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallOutcome } from '../../shared/contract.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { TestServe } from './serveHarness.js';
import { startTestServe } from './serveHarness.js';

const OPS = 'two-instances-ops-token-0123456789';
const DASH = 'two-instances-dash-token-0123456789';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describePostgres('two serve instances on one PostgreSQL', () => {
  const scratch = scratchDir('mh-serve-pg-');
  let database: TestDatabase;
  let a: TestServe;
  let b: TestServe;

  beforeAll(async () => {
    database = await createTestDatabase('serve');
    const shared = {
      databaseUrl: database.url,
      apiTokens: [
        { name: 'ops', role: 'admin' as const, sha256: sha256(OPS) },
        { name: 'dash', role: 'viewer' as const, sha256: sha256(DASH) },
      ],
    };
    a = await startTestServe(join(scratch.dir, 'a'), undefined, shared);
    b = await startTestServe(join(scratch.dir, 'b'), undefined, shared);
  }, 90_000);
  afterAll(async () => {
    await a?.serving.shutdown();
    await b?.serving.shutdown();
    await database?.drop();
    scratch.cleanup();
  });

  it('a call made on A is in B’s History with who made it; replaying it on B runs nothing', async () => {
    const ops = await BridgeClient.connect(a.port, { token: OPS });
    const dash = await BridgeClient.connect(b.port, { token: DASH });
    try {
      const made = await ops.call('tools.call', {
        name: 'list_directory',
        serverId: 'local',
        args: { path: '.' },
        callId: 'shared-1',
      });
      expect(made.ok, JSON.stringify(made)).toBe(true);
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
      } finally {
        opsOnB.close();
      }
    } finally {
      ops.close();
      dash.close();
    }
  }, 60_000);
});
