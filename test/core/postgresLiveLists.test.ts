/**
 * Two whole cores on one PostgreSQL: a permission rule saved on one, and a tool pin taken on one,
 * take effect on the other without a restart, and the other's GUI is told with its usual
 * `permissions.changed` (core/sharedLists.ts over LISTEN/NOTIFY `mh_lists`). The test waits for
 * that event, never for time. Real parts: the stdio fixture server, PostgreSQL.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallOutcome, PermissionsView } from '../../shared/contract.js';
import { LOCAL_SERVER_ID } from '../../electron/security/permissions.js';
import { redactDatabaseUrl } from '../../electron/storage/postgres/url.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { addFixtureServer, startGatewayApp } from '../gateway/support.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

/** The next `permissions.changed` the app emits from now on (the app's event log keeps earlier ones). */
function nextChange(app: GatewayApp): Promise<unknown> {
  let armed = false;
  const next = app.nextEvent('permissions.changed', () => armed);
  armed = true;
  return next;
}

/** Waits, event by event, until the app's Permissions view satisfies `done`. */
async function viewAfterChanges(app: GatewayApp, done: (view: PermissionsView) => boolean): Promise<PermissionsView> {
  for (;;) {
    const changed = nextChange(app);
    const view = await app.call<PermissionsView>('permissions.get');
    if (done(view)) return view;
    await changed;
  }
}

describePostgres('rules and pins shared live between cores on PostgreSQL', () => {
  const scratch = scratchDir('mh-pg-lists-');
  let database: TestDatabase;
  let first: GatewayApp;
  let second: GatewayApp;

  beforeAll(async () => {
    database = await createTestDatabase('lists');
    const selection = { kind: 'postgres' as const, url: database.url, where: redactDatabaseUrl(database.url) };
    first = await startGatewayApp(join(scratch.dir, 'one'), { database: selection });
    second = await startGatewayApp(join(scratch.dir, 'two'), { database: selection });
  }, 90_000);

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await database?.drop();
    scratch.cleanup();
  });

  it("a rule saved on one core decides the other's calls at once, and its Permissions view is told", async () => {
    const before = await second.call<PermissionsView>('permissions.get');
    const local = before.tools.find((t) => t.serverId === LOCAL_SERVER_ID && t.level !== 'DENY');
    if (!local) throw new Error('expected a local tool that is not denied');
    const id = `tool:${LOCAL_SERVER_ID}:${local.toolName}`;
    await first.call('permissions.setToolLevel', {
      serverId: LOCAL_SERVER_ID,
      toolName: local.toolName,
      level: 'DENY',
    });
    // Told (permissions.changed), the second core's view has the rule, and its engine decides with it.
    const after = await viewAfterChanges(second, (v) => v.rules.some((r) => r.id === id && r.level === 'DENY'));
    expect(after.tools.find((t) => t.serverId === LOCAL_SERVER_ID && t.toolName === local.toolName)).toEqual(
      expect.objectContaining({ level: 'DENY', reason: expect.objectContaining({ kind: 'rule', ruleId: id }) }),
    );
    // And back: removed on the second core, it is gone from the first's view.
    await second.call('permissions.setToolLevel', {
      serverId: LOCAL_SERVER_ID,
      toolName: local.toolName,
      level: 'default',
    });
    const back = await viewAfterChanges(first, (v) => !v.rules.some((r) => r.id === id));
    expect(back.tools.find((t) => t.serverId === LOCAL_SERVER_ID && t.toolName === local.toolName)?.level).toBe(
      local.level,
    );
  }, 60_000);

  it("a tool pinned on one core is listed by the other's Permissions view, which is told", async () => {
    const counter = join(scratch.dir, 'counter.txt');
    await addFixtureServer(first, 'fx', { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append' }, ['append']);
    const before = await second.call<PermissionsView>('permissions.get');
    expect(before.pins).toEqual([]);
    // Allowed by a rule, the call pins the tool on the first core.
    const ran = await first.call<CallOutcome>('tools.call', {
      name: 'append',
      serverId: 'fx',
      args: { line: 'pin' },
      callId: 'pin-1',
    });
    expect(ran.replayed).toBe(false);
    const view = await viewAfterChanges(second, (v) => (v.pins?.length ?? 0) > 0);
    expect(view.pins).toEqual([expect.objectContaining({ serverId: 'fx', toolName: 'append', decision: 'rule' })]);
  }, 60_000);
});
