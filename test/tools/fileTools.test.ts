import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermissionDeniedError } from '../../electron/security/errors.js';
import { PermissionDecisionEngine } from '../../electron/security/permissions.js';
import { SecureToolExecutor } from '../../electron/security/secureExecutor.js';
import { ToolInputError } from '../../electron/tools/errors.js';
import { createLocalTools } from '../../electron/tools/localTools.js';
import type { LocalTool } from '../../electron/tools/types.js';
import { MemoryRuleStore } from '../doubles/security/memoryRuleStore.js';

let base: string;
let root: string;
let outside: string;
let tools: Map<string, LocalTool>;

function tool(name: string): LocalTool {
  const found = tools.get(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

function text(result: { content: { type: string }[] }): string {
  const block = result.content[0] as { type: string; text?: string };
  return block.text ?? '';
}

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mh-tools-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'docs'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'docs', 'hello.txt'), 'héllo wörld\n');
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET');
  tools = new Map(createLocalTools({ roots: [root], maxReadBytes: 1024, command: false }).map((t) => [t.name, t]));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('createLocalTools', () => {
  it('describes each tool with an object schema and honest annotations', () => {
    const all = createLocalTools({ roots: [root] });
    expect(all.map((t) => t.name)).toEqual(['read_file', 'write_file', 'list_directory', 'run_command']);
    for (const t of all) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.inputSchema).not.toHaveProperty('$schema');
      expect(t.description.length).toBeGreaterThan(10);
    }
    expect(tool('read_file').inputSchema.required).toEqual(['path']);
    expect(tool('read_file').annotations.readOnlyHint).toBe(true);
    expect(tool('list_directory').annotations.readOnlyHint).toBe(true);
    expect(tool('write_file').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(createLocalTools({ roots: [root], command: false }).map((t) => t.name)).not.toContain('run_command');
    expect(() => createLocalTools({ roots: [] })).toThrow(/at least one allowed folder/);
  });
});

describe('read_file', () => {
  it('reads a text file inside the roots', async () => {
    const result = await tool('read_file').run({ path: 'docs/hello.txt' });
    expect(result.isError).toBe(false);
    expect(text(result)).toBe('héllo wörld\n');
    expect(result.structuredContent).toEqual({
      path: join(root, 'docs', 'hello.txt'),
      bytes: Buffer.byteLength('héllo wörld\n'),
    });
  });

  it('refuses outside paths in guardrails and again in run, without leaking contents', async () => {
    for (const path of [join(outside, 'secret.txt'), '../outside/secret.txt']) {
      const guard = await tool('read_file').guardrails({ path });
      expect(guard.ok).toBe(false);
      const result = await tool('read_file').run({ path });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ error: { code: 'path_outside_roots' } });
      expect(JSON.stringify(result)).not.toContain('TOP SECRET');
    }
  });

  it('refuses to follow a symlink out of the roots', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
    expect((await tool('read_file').guardrails({ path: 'link.txt' })).ok).toBe(false);
    const result = await tool('read_file').run({ path: 'link.txt' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain('TOP SECRET');
  });

  it('refuses files over the cap (configured, or lowered by maxBytes) with a clear error', async () => {
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(2000));
    const big = await tool('read_file').run({ path: 'big.txt' });
    expect(big.isError).toBe(true);
    expect(text(big)).toMatch(/2000 bytes, more than the 1024-byte limit/);
    const lowered = await tool('read_file').run({ path: 'docs/hello.txt', maxBytes: 5 });
    expect(lowered).toMatchObject({ isError: true, structuredContent: { error: { code: 'file_too_large' } } });
  });

  it('a missing file, a folder and a binary file are ordinary errors', async () => {
    expect((await tool('read_file').guardrails({ path: 'missing.txt' })).ok).toBe(true);
    expect(await tool('read_file').run({ path: 'missing.txt' })).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'path_not_found' } },
    });
    expect(await tool('read_file').run({ path: 'docs' })).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'not_a_file' } },
    });
    writeFileSync(join(root, 'bin.dat'), Buffer.from([1, 0, 2]));
    expect(await tool('read_file').run({ path: 'bin.dat' })).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'binary_file' } },
    });
  });

  it('bad arguments: guardrails refuse, run throws ToolInputError', async () => {
    const guard = await tool('read_file').guardrails({ file: 'x' });
    expect(guard).toMatchObject({ ok: false });
    expect(guard.ok === false && guard.reason).toMatch(/Invalid arguments for read_file/);
    await expect(tool('read_file').run({ path: 7 })).rejects.toBeInstanceOf(ToolInputError);
    await expect(tool('read_file').run({ path: 'a', maxBytes: 99_999 })).rejects.toThrow(/maxBytes/);
  });
});

describe('write_file', () => {
  it('creates and replaces files inside the roots', async () => {
    const created = await tool('write_file').run({ path: 'docs/new.txt', content: 'one' });
    expect(created).toMatchObject({ isError: false, structuredContent: { created: true, bytes: 3 } });
    const replaced = await tool('write_file').run({ path: 'docs/new.txt', content: 'two!' });
    expect(replaced).toMatchObject({ isError: false, structuredContent: { created: false, bytes: 4 } });
    expect(readFileSync(join(root, 'docs', 'new.txt'), 'utf8')).toBe('two!');
  });

  it('needs createDirs for a missing folder', async () => {
    const refused = await tool('write_file').run({ path: 'a/b/c.txt', content: 'x' });
    expect(refused).toMatchObject({ isError: true, structuredContent: { error: { code: 'parent_missing' } } });
    expect(existsSync(join(root, 'a'))).toBe(false);
    const ok = await tool('write_file').run({ path: 'a/b/c.txt', content: 'x', createDirs: true });
    expect(ok.isError).toBe(false);
    expect(readFileSync(join(root, 'a', 'b', 'c.txt'), 'utf8')).toBe('x');
  });

  it('refuses writes outside, through an escaping folder symlink, and writes nothing there', async () => {
    symlinkSync(outside, join(root, 'escape'));
    for (const path of [join(outside, 'x.txt'), '../outside/x.txt', 'escape/x.txt', 'escape/deep/x.txt']) {
      expect((await tool('write_file').guardrails({ path, content: 'pwned' })).ok).toBe(false);
      const result = await tool('write_file').run({ path, content: 'pwned', createDirs: true });
      expect(result.isError).toBe(true);
    }
    expect(existsSync(join(outside, 'x.txt'))).toBe(false);
    expect(existsSync(join(outside, 'deep'))).toBe(false);
  });

  it('checks again at run time: a folder swapped for a symlink after the guardrail is refused', async () => {
    mkdirSync(join(root, 'work'));
    expect((await tool('write_file').guardrails({ path: 'work/out.txt', content: 'x' })).ok).toBe(true);
    rmSync(join(root, 'work'), { recursive: true });
    symlinkSync(outside, join(root, 'work'));
    const result = await tool('write_file').run({ path: 'work/out.txt', content: 'x' });
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: 'path_outside_roots' } } });
    expect(existsSync(join(outside, 'out.txt'))).toBe(false);
  });
});

describe('list_directory', () => {
  it('lists entries with name, type and size, sorted, without following symlinks', async () => {
    writeFileSync(join(root, 'b.txt'), '12345');
    symlinkSync(outside, join(root, 'escape'));
    const result = await tool('list_directory').run({ path: '.' });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({
      path: root,
      truncated: false,
      entries: [
        { name: 'b.txt', type: 'file', size: 5 },
        { name: 'docs', type: 'directory', size: null },
        { name: 'escape', type: 'symlink', size: null },
      ],
    });
    expect(text(result)).toContain('docs/');
  });

  it('refuses folders outside the roots and through escaping symlinks', async () => {
    symlinkSync(outside, join(root, 'escape'));
    for (const path of [outside, '..', 'escape']) {
      expect((await tool('list_directory').guardrails({ path })).ok).toBe(false);
      const result = await tool('list_directory').run({ path });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result)).not.toContain('secret.txt');
    }
  });

  it('truncates long listings', async () => {
    const limited = createLocalTools({ roots: [root], maxListEntries: 2, command: false }).find(
      (t) => t.name === 'list_directory',
    )!;
    for (const n of ['1', '2', '3', '4']) writeFileSync(join(root, `${n}.txt`), n);
    const result = await limited.run({ path: '.' });
    expect(result.structuredContent).toMatchObject({ truncated: true, total: 5 });
    expect((result.structuredContent as { entries: unknown[] }).entries).toHaveLength(2);
  });
});

describe('binding to the checked path', () => {
  it('read_file and list_directory check again at run time: a folder swapped for a symlink after the guardrail is refused', async () => {
    mkdirSync(join(outside, 'docs'));
    writeFileSync(join(outside, 'docs', 'hello.txt'), 'TOP SECRET');
    expect((await tool('read_file').guardrails({ path: 'docs/hello.txt' })).ok).toBe(true);
    expect((await tool('list_directory').guardrails({ path: 'docs' })).ok).toBe(true);
    renameSync(join(root, 'docs'), join(root, 'parked'));
    symlinkSync(outside, join(root, 'docs'));
    for (const result of [
      await tool('read_file').run({ path: 'docs/hello.txt' }),
      await tool('list_directory').run({ path: 'docs' }),
    ]) {
      expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: 'path_outside_roots' } } });
      expect(JSON.stringify(result)).not.toContain('TOP SECRET');
      expect(JSON.stringify(result)).not.toContain('hello.txt"');
    }
  });

  it('a hard link to an outside file is neither read nor overwritten, with a typed error', async () => {
    linkSync(join(outside, 'secret.txt'), join(root, 'docs', 'linked.txt'));
    const read = await tool('read_file').run({ path: 'docs/linked.txt' });
    expect(read).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'hard_linked_file', details: { links: 2 } } },
    });
    expect(text(read)).toMatch(/2 hard links/);
    expect(JSON.stringify(read)).not.toContain('TOP SECRET');
    const write = await tool('write_file').run({ path: 'docs/linked.txt', content: 'pwned' });
    expect(write).toMatchObject({ isError: true, structuredContent: { error: { code: 'hard_linked_file' } } });
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
    expect(readdirSync(join(root, 'docs')).sort()).toEqual(['hello.txt', 'linked.txt']);
  });

  it('a file with a single link still reads and is replaced in place of the old one', async () => {
    expect(await tool('write_file').run({ path: 'docs/hello.txt', content: 'new' })).toMatchObject({
      isError: false,
      structuredContent: { created: false },
    });
    expect(text(await tool('read_file').run({ path: 'docs/hello.txt' }))).toBe('new');
    expect(readdirSync(join(root, 'docs'))).toEqual(['hello.txt']); // no temporary file left behind
  });
});

describe('excluded folders', () => {
  let data: string;
  let guarded: Map<string, LocalTool>;
  beforeEach(() => {
    data = join(root, 'data');
    mkdirSync(data);
    writeFileSync(join(data, 'secrets.json'), '{"token":"TOP SECRET"}');
    guarded = new Map(createLocalTools({ roots: [root], excluded: [data], command: false }).map((t) => [t.name, t]));
  });
  const run = (name: string, args: Record<string, unknown>) => guarded.get(name)!.run(args);
  const guard = (name: string, args: Record<string, unknown>) => guarded.get(name)!.guardrails(args);

  it('are never read, listed or written, though inside a root — directly, with `..`, or through a symlink', async () => {
    symlinkSync(data, join(root, 'alias'));
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['read_file', { path: 'data/secrets.json' }],
      ['read_file', { path: 'docs/../data/secrets.json' }],
      ['read_file', { path: 'alias/secrets.json' }],
      ['list_directory', { path: 'data' }],
      ['list_directory', { path: 'alias' }],
      ['write_file', { path: 'data/secrets.json', content: '{}' }],
      ['write_file', { path: 'alias/new.json', content: '{}' }],
      ['write_file', { path: 'data/deeper/new.json', content: '{}', createDirs: true }],
    ];
    for (const [name, args] of attempts) {
      expect((await guard(name, args)).ok).toBe(false);
      const result = await run(name, args);
      expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: 'path_excluded' } } });
      expect(JSON.stringify(result)).not.toContain('TOP SECRET');
    }
    expect(readFileSync(join(data, 'secrets.json'), 'utf8')).toBe('{"token":"TOP SECRET"}');
    expect(readdirSync(data)).toEqual(['secrets.json']);
  });

  it('are left out of the listing of the folder that holds them; the rest still works', async () => {
    const listing = await run('list_directory', { path: '.' });
    expect((listing.structuredContent as { entries: { name: string }[] }).entries.map((e) => e.name)).toEqual(['docs']);
    expect(listing.structuredContent).toMatchObject({ total: 1 });
    expect(text(await run('read_file', { path: 'docs/hello.txt' }))).toBe('héllo wörld\n');
    expect((await run('write_file', { path: 'docs/ok.txt', content: 'ok' })).isError).toBe(false);
  });

  it('a folder excluded before it exists is refused once created; relative exclusions are a setup error', async () => {
    const later = join(root, 'later');
    const tools = createLocalTools({ roots: [root], excluded: [later], command: false });
    const write = tools.find((t) => t.name === 'write_file')!;
    expect(await write.run({ path: 'later/x.txt', content: 'x', createDirs: true })).toMatchObject({
      structuredContent: { error: { code: 'path_excluded' } },
    });
    mkdirSync(later);
    expect(await write.run({ path: 'later/x.txt', content: 'x' })).toMatchObject({
      structuredContent: { error: { code: 'path_excluded' } },
    });
    expect(readdirSync(later)).toEqual([]);
    expect(() => createLocalTools({ roots: [root], excluded: ['data'] })).toThrow(/absolute/);
  });
});

describe('local tools through the executor', () => {
  it('read_file is allowed by its own annotation; write_file asks, and a denial writes nothing', async () => {
    const asked: string[] = [];
    const executor = new SecureToolExecutor({
      engine: new PermissionDecisionEngine(new MemoryRuleStore()),
      requestApproval: async (request) => {
        asked.push(request.toolName);
        return 'deny';
      },
    });
    const authorizeAndRun = async (t: LocalTool, args: Record<string, unknown>) => {
      await executor.authorize({
        subject: { toolName: t.name, serverId: 'local', args, annotations: t.annotations, serverTrusted: true },
        sessionId: 's',
        userId: 'u',
        guardrails: () => t.guardrails(args),
      });
      return t.run(args);
    };
    expect((await authorizeAndRun(tool('read_file'), { path: 'docs/hello.txt' })).isError).toBe(false);
    await expect(authorizeAndRun(tool('write_file'), { path: 'docs/new.txt', content: 'x' })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
    expect(asked).toEqual(['write_file']);
    expect(existsSync(join(root, 'docs', 'new.txt'))).toBe(false);
    // Outside the roots: refused by the guardrail before anyone is asked.
    await expect(authorizeAndRun(tool('read_file'), { path: join(outside, 'secret.txt') })).rejects.toMatchObject({
      level: 'DENY',
    });
    expect(asked).toEqual(['write_file']);
  });
});
