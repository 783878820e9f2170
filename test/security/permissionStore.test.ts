import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileDamagedWarning } from '../../shared/contract.js';
import { PermissionRulesCorruptError } from '../../electron/security/errors.js';
import type { PermissionRule } from '../../electron/security/permissions.js';
import { PermissionDecisionEngine } from '../../electron/security/permissions.js';
import { JsonFilePermissionRuleStore } from '../../electron/security/permissionStore.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mh-rules-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sample: PermissionRule[] = [
  { id: 'a', level: 'DENY', match: { serverId: 'fixture', toolName: 'append' }, note: 'deny writes', createdAt: 10 },
  {
    id: 'b',
    level: 'ALLOW',
    match: { toolPattern: 'read_*', argument: { name: 'path', under: '/srv' } },
    createdAt: 20,
  },
];

describe('JsonFilePermissionRuleStore', () => {
  it('a missing file is an empty rule set', async () => {
    const store = new JsonFilePermissionRuleStore(join(dir, 'rules.json'));
    expect(await store.load()).toEqual([]);
    expect(store.corruption).toBeUndefined();
  });

  it('round-trips rules, creating the folder, with owner-only permissions', async () => {
    const file = join(dir, 'nested', 'rules.json');
    await new JsonFilePermissionRuleStore(file).save(sample);
    expect(await new JsonFilePermissionRuleStore(file).load()).toEqual(sample);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ version: 1 });
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('the engine persists through the file and a new engine sees the rules', async () => {
    const file = join(dir, 'rules.json');
    const first = await PermissionDecisionEngine.load(new JsonFilePermissionRuleStore(file));
    await first.addRule({
      id: 'x',
      level: 'DENY',
      match: { serverId: 'fixture', toolName: 'append' },
      note: 'deny writes',
    });
    const second = await PermissionDecisionEngine.load(new JsonFilePermissionRuleStore(file));
    expect(
      second.decide({ toolName: 'append', serverId: 'fixture', args: {}, serverTrusted: true }).reason.detail,
    ).toBe('Rule "deny writes" denies append on fixture');
  });

  it('refuses to save invalid rules and leaves the file as it was', async () => {
    const file = join(dir, 'rules.json');
    const store = new JsonFilePermissionRuleStore(file);
    await store.save(sample);
    const before = readFileSync(file, 'utf8');
    await expect(store.save([{ ...sample[0]!, level: 'SOMETIMES' as never }])).rejects.toThrow();
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it.each([
    ['not JSON', '{"version": 1, "rules": [ {"id": "sk-secret-token"', /not valid JSON/],
    [
      'a wrong shape',
      JSON.stringify({ version: 1, rules: [{ id: 'a', level: 'NOPE', match: {}, createdAt: 1 }] }),
      /rules\.0\.level/,
    ],
    ['an unknown version', JSON.stringify({ version: 9, rules: [] }), /version/],
    ['duplicate ids', JSON.stringify({ version: 1, rules: [sample[0], sample[0]] }), /duplicate rule id/],
  ])('a corrupt file (%s) is moved aside, reported, and no rules are used', async (_label, body, detail) => {
    const file = join(dir, 'rules.json');
    writeFileSync(file, body);
    const reported: PermissionRulesCorruptError[] = [];
    const damaged: FileDamagedWarning[] = [];
    const store = new JsonFilePermissionRuleStore(file, {
      onCorrupt: (e) => reported.push(e),
      onDamaged: (w) => damaged.push(w),
      now: () => 1234,
    });

    expect(await store.load()).toEqual([]);
    expect(damaged).toEqual([
      {
        code: 'file_damaged',
        file,
        movedTo: join(dir, 'rules.json.corrupt-1970-01-01T00-00-01-234Z'),
        lost: 'permission_rules',
        problem: body.startsWith('{"version": 1, "rules": [ {') ? 'not_json' : 'invalid_content',
      },
    ]);

    expect(readdirSync(dir).sort()).toEqual(['rules.json.corrupt-1970-01-01T00-00-01-234Z']);
    expect(readFileSync(join(dir, 'rules.json.corrupt-1970-01-01T00-00-01-234Z'), 'utf8')).toBe(body);
    expect(reported).toHaveLength(1);
    expect(store.corruption).toBe(reported[0]);
    expect(reported[0]).toBeInstanceOf(PermissionRulesCorruptError);
    expect(reported[0]!.message).toMatch(detail);
    expect(reported[0]!.message).toContain('rules.json.corrupt-1970-01-01T00-00-01-234Z');
    expect(reported[0]!.message).not.toContain('sk-secret-token');

    // The next save writes a fresh file; the corrupt copy stays.
    await store.save(sample);
    expect(readdirSync(dir).sort()).toEqual(['rules.json', 'rules.json.corrupt-1970-01-01T00-00-01-234Z']);
  });

  it('a second corrupt file with the same timestamp does not overwrite the first copy', async () => {
    const file = join(dir, 'rules.json');
    const store = new JsonFilePermissionRuleStore(file, { now: () => 7 });
    writeFileSync(file, 'first');
    await store.load();
    writeFileSync(file, 'second');
    await store.load();
    expect(readFileSync(join(dir, 'rules.json.corrupt-1970-01-01T00-00-00-007Z'), 'utf8')).toBe('first');
    expect(readFileSync(join(dir, 'rules.json.corrupt-1970-01-01T00-00-00-007Z-1'), 'utf8')).toBe('second');
  });
});
