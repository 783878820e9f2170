/**
 * The permission rules in PostgreSQL (security/postgresRuleStore.ts): what one process saves
 * another reads, the permission engine over it works as over the file, and of two processes
 * saving from the same revision the second is refused — nothing of the first is erased.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PermissionDecisionEngine } from '../../electron/security/permissions.js';
import type { PermissionRule } from '../../electron/security/permissions.js';
import { POSTGRES_RULE_MIGRATIONS, PostgresPermissionRuleStore } from '../../electron/security/postgresRuleStore.js';
import { ChangedElsewhereError } from '../../electron/storage/errors.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

const rule = (id: string, toolName: string): PermissionRule => ({
  id,
  level: 'ALLOW',
  match: { serverId: 'fx', toolName },
  createdAt: 1,
});

describePostgres('permission rules in PostgreSQL', () => {
  let database: TestDatabase;
  let one: PostgresDatabase;
  let two: PostgresDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('rules');
    const migrations = { permission_rules: POSTGRES_RULE_MIGRATIONS };
    one = await openPostgres(database.url, { migrations });
    two = await openPostgres(database.url, { migrations });
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
    await database?.drop();
  });

  it('one process saves, another reads; two saving from one revision: the second is refused, the first kept', async () => {
    const a = new PostgresPermissionRuleStore(one.pool, one.where);
    const b = new PostgresPermissionRuleStore(two.pool, two.where);
    expect(await a.load()).toEqual([]);
    expect(await b.load()).toEqual([]);

    await a.save([rule('r1', 'append')]);
    // b read revision 0 before a's save: its save would erase r1 unseen.
    await expect(b.save([rule('r2', 'echo')])).rejects.toBeInstanceOf(ChangedElsewhereError);
    expect(await new PostgresPermissionRuleStore(two.pool, two.where).load()).toEqual([rule('r1', 'append')]);

    // Once b has read again, its change is saved over what it saw.
    expect(await b.load()).toEqual([rule('r1', 'append')]);
    await b.save([rule('r1', 'append'), rule('r2', 'echo')]);
    await expect(a.save([])).rejects.toBeInstanceOf(ChangedElsewhereError);
    expect(await a.load()).toHaveLength(2);
  });

  it('the permission engine over it: a rule added in one process decides in another that loads after', async () => {
    const engine = await PermissionDecisionEngine.load(new PostgresPermissionRuleStore(one.pool, one.where));
    await engine.addRule({ level: 'DENY', match: { serverId: 'fx', toolName: 'wipe' }, note: 'never' });
    const other = await PermissionDecisionEngine.load(new PostgresPermissionRuleStore(two.pool, two.where));
    expect(other.listRules().map((r) => r.match.toolName)).toContain('wipe');
  });

  it('two engines loaded at once each add a rule: the later save is applied again to the rules as stored, both kept', async () => {
    const a = await PermissionDecisionEngine.load(new PostgresPermissionRuleStore(one.pool, one.where));
    const b = await PermissionDecisionEngine.load(new PostgresPermissionRuleStore(two.pool, two.where));
    await a.addRule({ id: 'from-a', level: 'DENY', match: { serverId: 'fx', toolName: 'drop' } });
    // b read before a's save: without the retry its save is refused (ChangedElsewhereError).
    await b.addRule({ id: 'from-b', level: 'ALLOW', match: { serverId: 'fx', toolName: 'read' } });
    expect(b.listRules().map((r) => r.id)).toEqual(expect.arrayContaining(['from-a', 'from-b']));
    const stored = await new PostgresPermissionRuleStore(one.pool, one.where).load();
    expect(stored.map((r) => r.id)).toEqual(expect.arrayContaining(['from-a', 'from-b']));
  });
});
