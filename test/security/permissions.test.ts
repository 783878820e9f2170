import { describe, expect, it } from 'vitest';
import type { PermissionRule, ToolCallSubject } from '../../electron/security/permissions.js';
import { PermissionDecisionEngine, PermissionRuleSchema } from '../../electron/security/permissions.js';
import { MemoryRuleStore } from '../doubles/security/memoryRuleStore.js';

function subject(overrides: Partial<ToolCallSubject> = {}): ToolCallSubject {
  return { toolName: 'append', serverId: 'fixture', args: {}, serverTrusted: false, ...overrides };
}

function rule(
  id: string,
  level: PermissionRule['level'],
  match: PermissionRule['match'],
  note?: string,
): PermissionRule {
  return { id, level, match, createdAt: 1, ...(note ? { note } : {}) };
}

function engine(rules: PermissionRule[] = [], pathBase?: string): PermissionDecisionEngine {
  return new PermissionDecisionEngine(new MemoryRuleStore(), rules, pathBase ? { pathBase } : {});
}

describe('defaults', () => {
  it('a trusted server: readOnlyHint true allows, anything else asks', () => {
    const e = engine();
    expect(e.decide(subject({ serverTrusted: true, annotations: { readOnlyHint: true } }))).toMatchObject({
      level: 'ALLOW',
      reason: { kind: 'trusted-annotation-default' },
    });
    expect(e.decide(subject({ serverTrusted: true, annotations: { readOnlyHint: false } }))).toMatchObject({
      level: 'ASK',
      reason: { kind: 'trusted-annotation-default' },
    });
    expect(e.decide(subject({ serverTrusted: true }))).toMatchObject({ level: 'ASK', reason: { kind: 'default' } });
  });

  it('an untrusted server asks even when it claims to be read-only', () => {
    const d = engine().decide(subject({ serverTrusted: false, annotations: { readOnlyHint: true } }));
    expect(d.level).toBe('ASK');
    expect(d.reason.kind).toBe('untrusted-default');
    expect(d.reason.detail).toContain('fixture');
  });

  it('local tools are trusted: their own read-only annotation allows', () => {
    const e = engine();
    const local = { serverId: 'local', serverTrusted: false };
    expect(e.decide(subject({ ...local, toolName: 'read_file', annotations: { readOnlyHint: true } })).level).toBe(
      'ALLOW',
    );
    expect(
      e.decide(
        subject({ ...local, toolName: 'write_file', annotations: { readOnlyHint: false, destructiveHint: true } }),
      ).level,
    ).toBe('ASK');
  });
});

describe('rules', () => {
  it('an explicit rule beats the default, and the detail names rule, verb, tool and server', () => {
    const e = engine([rule('r1', 'DENY', { serverId: 'fixture', toolName: 'append' }, 'deny writes')]);
    const d = e.decide(subject({ serverTrusted: true, annotations: { readOnlyHint: true } }));
    expect(d).toEqual({
      level: 'DENY',
      reason: { kind: 'rule', ruleId: 'r1', detail: 'Rule "deny writes" denies append on fixture' },
    });
  });

  it('the most specific rule wins: server+tool > tool > pattern > server-wide', () => {
    const serverWide = rule('server', 'DENY', { serverId: 'fixture' });
    const pattern = rule('pattern', 'ASK', { toolPattern: 'app*' });
    const tool = rule('tool', 'DENY', { toolName: 'append' });
    const exact = rule('exact', 'ALLOW', { serverId: 'fixture', toolName: 'append' });

    expect(engine([serverWide, pattern, tool, exact]).decide(subject()).reason.ruleId).toBe('exact');
    expect(engine([serverWide, pattern, tool]).decide(subject()).reason.ruleId).toBe('tool');
    expect(engine([serverWide, pattern]).decide(subject()).reason.ruleId).toBe('pattern');
    expect(engine([serverWide]).decide(subject()).reason.ruleId).toBe('server');
    // Rule order in the list does not matter.
    expect(engine([exact, tool, pattern, serverWide]).decide(subject()).level).toBe('ALLOW');
  });

  it('at equal specificity DENY beats ASK beats ALLOW, whatever the order', () => {
    const allow = rule('a', 'ALLOW', { toolName: 'append' });
    const ask = rule('b', 'ASK', { toolName: 'append' });
    const deny = rule('c', 'DENY', { toolName: 'append' });
    expect(engine([allow, ask]).decide(subject()).level).toBe('ASK');
    expect(engine([ask, allow]).decide(subject()).level).toBe('ASK');
    expect(engine([deny, allow, ask]).decide(subject()).level).toBe('DENY');
    expect(engine([allow, ask, deny]).decide(subject()).level).toBe('DENY');
  });

  it('rules for other servers or tools do not apply', () => {
    const e = engine([
      rule('other', 'DENY', { serverId: 'elsewhere', toolName: 'append' }),
      rule('p', 'DENY', { toolPattern: 'fs_*' }),
    ]);
    expect(e.decide(subject({ serverTrusted: true, annotations: { readOnlyHint: true } })).level).toBe('ALLOW');
    expect(e.decide(subject({ toolName: 'fs_write' })).reason.ruleId).toBe('p');
  });

  it('a pattern scoped to a server beats an unscoped pattern', () => {
    const e = engine([
      rule('any', 'DENY', { toolPattern: '*' }),
      rule('scoped', 'ALLOW', { serverId: 'fixture', toolPattern: '*' }),
    ]);
    expect(e.decide(subject()).reason.ruleId).toBe('scoped');
  });

  it('argument rules apply only when the condition holds, and beat the plain rule of their tier', () => {
    const base = '/work/project';
    const e = engine(
      [
        rule('allow-write', 'ALLOW', { serverId: 'local', toolName: 'write_file' }),
        rule('no-secrets', 'DENY', {
          serverId: 'local',
          toolName: 'write_file',
          argument: { name: 'path', under: '/work/project/secrets' },
        }),
      ],
      base,
    );
    const write = (path: unknown) => e.decide(subject({ serverId: 'local', toolName: 'write_file', args: { path } }));
    expect(write('/work/project/secrets/key.pem').reason.ruleId).toBe('no-secrets');
    expect(write('secrets/key.pem').reason.ruleId).toBe('no-secrets'); // relative, against pathBase
    expect(write('/work/project/secrets').reason.ruleId).toBe('no-secrets'); // the folder itself
    expect(write('notes/../secrets/x').reason.ruleId).toBe('no-secrets'); // `..` collapsed
    expect(write('/work/project/secrets-public/x').reason.ruleId).toBe('allow-write'); // a sibling with a common prefix
    expect(write('/work/project/src/a.ts').reason.ruleId).toBe('allow-write');
    expect(write(42).reason.ruleId).toBe('allow-write'); // not a path
    expect(write(undefined).reason.ruleId).toBe('allow-write'); // absent
  });

  it('argument equals and pattern conditions', () => {
    const e = engine([
      rule('eq', 'DENY', { toolName: 'run', argument: { name: 'mode', equals: 'force' } }),
      rule('glob', 'ASK', { toolName: 'fetch', argument: { name: 'url', pattern: 'https://internal.example/**' } }),
    ]);
    expect(e.decide(subject({ toolName: 'run', args: { mode: 'force' } })).reason.ruleId).toBe('eq');
    expect(e.decide(subject({ toolName: 'run', args: { mode: 'gentle' } })).reason.kind).toBe('untrusted-default');
    expect(e.decide(subject({ toolName: 'fetch', args: { url: 'https://internal.example/a/b' } })).reason.ruleId).toBe(
      'glob',
    );
    expect(
      e.decide(subject({ toolName: 'fetch', args: { url: 'https://public.example/a' } })).reason.ruleId,
    ).toBeUndefined();
  });

  it('a rule bound to a schema fingerprint applies only while the tool has it', () => {
    const e = engine([
      rule('always', 'ALLOW', { serverId: 'fixture', toolName: 'append', schemaFingerprint: 'sha256:v1' }),
    ]);
    expect(e.decide(subject({ schemaFingerprint: 'sha256:v1' })).level).toBe('ALLOW');
    expect(e.decide(subject({ schemaFingerprint: 'sha256:v2' })).level).toBe('ASK');
    expect(e.decide(subject()).level).toBe('ASK');
  });

  it('explain gives the same answer as decide', () => {
    const e = engine([rule('r', 'DENY', { serverId: 'fixture' })]);
    expect(e.explain(subject())).toEqual(e.decide(subject()));
  });

  it('the schema refuses malformed rules', () => {
    expect(PermissionRuleSchema.safeParse({ id: 'x', level: 'MAYBE', match: {}, createdAt: 1 }).success).toBe(false);
    expect(
      PermissionRuleSchema.safeParse({ id: 'x', level: 'ALLOW', match: { argument: { name: 'path' } }, createdAt: 1 })
        .success,
    ).toBe(false);
    expect(
      PermissionRuleSchema.safeParse({ id: 'x', level: 'ALLOW', match: { tool: 'typo' }, createdAt: 1 }).success,
    ).toBe(false);
  });
});

describe('rule changes persist', () => {
  it('addRule, removeRule and setRules save before they take effect', async () => {
    const store = new MemoryRuleStore();
    const e = await PermissionDecisionEngine.load(store);
    const added = await e.addRule({ level: 'DENY', match: { serverId: 'fixture' }, note: 'no fixture' });
    expect(added.id).toMatch(/.+/);
    expect(store.saves.at(-1)?.map((r) => r.id)).toEqual([added.id]);
    expect(e.decide(subject()).level).toBe('DENY');

    await e.addRule({ id: added.id, level: 'ALLOW', match: { serverId: 'fixture' } }); // same id replaces
    expect(e.listRules()).toHaveLength(1);
    expect(e.decide(subject()).level).toBe('ALLOW');

    expect(await e.removeRule(added.id)).toBe(true);
    expect(await e.removeRule('missing')).toBe(false);
    expect(e.listRules()).toEqual([]);
    expect(store.saves.at(-1)).toEqual([]);

    await e.setRules([rule('s1', 'DENY', { toolName: 'append' })]);
    expect((await PermissionDecisionEngine.load(store)).decide(subject()).level).toBe('DENY');
  });

  it('a failed save leaves the rules in memory unchanged', async () => {
    const store = new MemoryRuleStore();
    const e = new PermissionDecisionEngine(store);
    store.failSaves = true;
    await expect(e.addRule({ level: 'ALLOW', match: { serverId: 'fixture' } })).rejects.toThrow(/disk full/);
    expect(e.listRules()).toEqual([]);
    expect(e.decide(subject()).level).toBe('ASK');
  });

  it('concurrent adds are all kept', async () => {
    const store = new MemoryRuleStore();
    const e = new PermissionDecisionEngine(store);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => e.addRule({ id: `r${i}`, level: 'ALLOW', match: { toolName: `t${i}` } })),
    );
    expect(e.listRules()).toHaveLength(10);
    expect(store.saves.at(-1)).toHaveLength(10);
  });

  it('setRules refuses duplicate ids without saving', async () => {
    const store = new MemoryRuleStore();
    const e = new PermissionDecisionEngine(store);
    await expect(e.setRules([rule('d', 'ALLOW', {}), rule('d', 'DENY', {})])).rejects.toThrow(/id "d"/);
    expect(store.saves).toEqual([]);
  });

  it('listRules returns copies', () => {
    const e = engine([rule('r', 'DENY', { serverId: 'fixture' })]);
    const listed = e.listRules();
    listed[0]!.level = 'ALLOW';
    expect(e.decide(subject()).level).toBe('DENY');
  });
});

describe('server identity (issue 9, E9)', () => {
  it('a rule bound to a server identity applies only to that identity', () => {
    const e = engine([rule('r', 'ALLOW', { serverId: 'fixture', toolName: 'append', serverUid: 'uid-old-0001' })]);
    expect(e.decide(subject({ serverUid: 'uid-old-0001' })).level).toBe('ALLOW');
    expect(e.decide(subject({ serverUid: 'uid-new-0002' }))).toMatchObject({
      level: 'ASK',
      reason: { kind: 'untrusted-default' },
    });
    expect(e.decide(subject()).level).toBe('ASK');
  });

  it('old rules without an identity are bound to the current server on load, saved, and others are left alone', async () => {
    const store = new MemoryRuleStore();
    const e = new PermissionDecisionEngine(store, [
      rule('old', 'ALLOW', { serverId: 'fixture', toolName: 'append' }),
      rule('gone', 'ALLOW', { serverId: 'removed', toolName: 'x' }),
      rule('local', 'DENY', { serverId: 'local', toolName: 'run_command' }),
      rule('bound', 'ALLOW', { serverId: 'fixture', toolName: 'echo', serverUid: 'uid-keep-0003' }),
    ]);
    const bound = await e.bindServerIdentities((id) => (id === 'fixture' ? 'uid-now-0004' : undefined));
    expect(bound).toBe(1);
    const byId = new Map(e.listRules().map((r) => [r.id, r.match.serverUid]));
    expect(Object.fromEntries(byId)).toEqual({
      old: 'uid-now-0004',
      gone: undefined,
      local: undefined,
      bound: 'uid-keep-0003',
    });
    expect((await store.load()).find((r) => r.id === 'old')?.match.serverUid).toBe('uid-now-0004');
    expect(e.decide(subject({ serverUid: 'uid-now-0004' })).level).toBe('ALLOW');
    expect(await e.bindServerIdentities((id) => (id === 'fixture' ? 'uid-other-0005' : undefined))).toBe(0);
  });
});
