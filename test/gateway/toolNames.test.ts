/** The names agents see: valid characters, at most 64, deterministic, unique. */
import { describe, expect, it } from 'vitest';
import type { ToolRef } from '../../electron/gateway/toolNames.js';
import { MAX_TOOL_NAME, nameTools, ownNames } from '../../electron/gateway/toolNames.js';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

function nameOf(named: ReturnType<typeof nameTools>, serverId: string, toolName: string): string | undefined {
  return named.find((n) => n.serverId === serverId && n.toolName === toolName)?.name;
}

/** Every ordering of a small list (the servers may answer in any order). */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

describe('nameTools', () => {
  it('keeps a valid name as <server>__<tool> and marks it unchanged', () => {
    expect(nameTools([{ serverId: 'github', toolName: 'create_issue' }])).toEqual([
      { name: 'github__create_issue', serverId: 'github', toolName: 'create_issue', renamed: 'none' },
    ]);
  });

  it('replaces characters outside [A-Za-z0-9_-] and says so', () => {
    const named = nameTools([
      { serverId: 'fs', toolName: 'read.file' },
      { serverId: 'fs', toolName: 'list dir/all' },
      { serverId: 'fs', toolName: 'héllo' },
    ]);
    expect(named.map((n) => [n.toolName, n.name, n.renamed])).toEqual([
      ['héllo', 'fs__h_llo', 'sanitized'],
      ['list dir/all', 'fs__list_dir_all', 'sanitized'],
      ['read.file', 'fs__read_file', 'sanitized'],
    ]);
  });

  it('cuts long names to 64 characters with a hash, and names sharing a long prefix stay distinct', () => {
    const prefix = 'a_very_long_tool_name_that_goes_on_and_on_past_what_clients_accept';
    const tools: ToolRef[] = Array.from({ length: 50 }, (_, i) => ({ serverId: 'srv', toolName: `${prefix}_${i}` }));
    const named = nameTools(tools);
    expect(named).toHaveLength(50);
    for (const n of named) {
      expect(n.name).toMatch(VALID);
      expect(n.name.length).toBe(MAX_TOOL_NAME);
      expect(n.name.startsWith('srv__a_very_long')).toBe(true);
      expect(n.renamed).toBe('shortened');
    }
    expect(new Set(named.map((n) => n.name)).size).toBe(50);
  });

  it('resolves two tools that sanitize to one name: the valid name keeps it, the other gets a hash', () => {
    const named = nameTools([
      { serverId: 'srv', toolName: 'get.user' },
      { serverId: 'srv', toolName: 'get_user' },
    ]);
    // "get.user" sorts before "get_user", yet the tool whose name needed no change keeps it:
    // an agent calling srv__get_user must never reach get.user because a server added it.
    expect(nameOf(named, 'srv', 'get_user')).toBe('srv__get_user');
    const other = named.find((n) => n.toolName === 'get.user');
    expect(other?.renamed).toBe('collision');
    expect(other?.name).toMatch(/^srv__get_user_[0-9a-f]{6}$/);
  });

  it('resolves two valid pairs with the same joined name (a "__" inside an id) in the fixed order', () => {
    const named = nameTools([
      { serverId: 'a__b', toolName: 'c' },
      { serverId: 'a', toolName: 'b__c' },
    ]);
    expect(nameOf(named, 'a', 'b__c')).toBe('a__b__c');
    expect(nameOf(named, 'a__b', 'c')).toMatch(/^a__b__c_[0-9a-f]{6}$/);
    expect(named.find((n) => n.serverId === 'a__b')?.renamed).toBe('collision');
  });

  it('gives the same names whatever order the tools arrive in, and lists them by server then tool', () => {
    const tools: ToolRef[] = [
      { serverId: 'srv', toolName: 'get.user' },
      { serverId: 'srv', toolName: 'get_user' },
      { serverId: 'a__b', toolName: 'c' },
      { serverId: 'a', toolName: 'b__c' },
      { serverId: 'long', toolName: 'x'.repeat(70) },
    ];
    const expected = nameTools(tools);
    expect(expected.map((n) => `${n.serverId}/${n.toolName}`)).toEqual([
      'a/b__c',
      'a__b/c',
      `long/${'x'.repeat(70)}`,
      'srv/get.user',
      'srv/get_user',
    ]);
    for (const order of permutations(tools)) expect(nameTools(order)).toEqual(expected);
  });

  it('names a tool listed twice once', () => {
    expect(
      nameTools([
        { serverId: 's', toolName: 't' },
        { serverId: 's', toolName: 't' },
      ]),
    ).toHaveLength(1);
  });

  it('keeps every name valid and unique across a crowd of clashing, long and odd names', () => {
    const tools: ToolRef[] = [];
    for (let i = 0; i < 40; i++) {
      tools.push(
        { serverId: 'srv', toolName: `tool.${i % 10}` },
        { serverId: 'srv', toolName: `tool_${i % 10}` },
        { serverId: `s${i % 3}`, toolName: `${'y'.repeat(60)}.${i}` },
      );
    }
    const named = nameTools(tools);
    const distinct = new Set(tools.map((t) => `${t.serverId}\0${t.toolName}`));
    expect(named).toHaveLength(distinct.size);
    expect(new Set(named.map((n) => n.name)).size).toBe(named.length);
    for (const n of named) expect(n.name).toMatch(VALID);
  });
});

describe('ownNames (an agent that keeps its tools’ own names)', () => {
  const ranked = (serverId: string, toolName: string, priority = 0) => {
    const named = nameTools([{ serverId, toolName }])[0] as ReturnType<typeof nameTools>[number];
    return { named, priority };
  };

  it('keeps a name no other visible server offers; a shared one goes to the higher priority, ties to the first server id', () => {
    const names = ownNames([
      ranked('github', 'create_issue'),
      ranked('jira', 'search', 1),
      ranked('wiki', 'search', 5),
      ranked('a', 'fetch'),
      ranked('b', 'fetch'),
    ]);
    expect(names.get('github\0create_issue')).toBe('create_issue');
    expect(names.get('wiki\0search')).toBe('search');
    expect(names.get('jira\0search')).toBe('jira__search');
    expect(names.get('a\0fetch')).toBe('fetch');
    expect(names.get('b\0fetch')).toBe('b__fetch');
  });

  it('a name the spec does not allow, or another tool’s <server>__<tool> name, keeps the prefix', () => {
    const names = ownNames([ranked('fs', 'read file'), ranked('x', 'a__b'), ranked('a', 'b'), ranked('s', 'get.user')]);
    expect(names.get('fs\0read file')).toBe('fs__read_file');
    expect(names.get('x\0a__b')).toBe('x__a__b');
    expect(names.get('a\0b')).toBe('b');
    // Dots are valid MCP names (1–128 of [A-Za-z0-9_.-]): the server's own name is kept.
    expect(names.get('s\0get.user')).toBe('get.user');
  });
});
