/**
 * Real published servers run sandboxed (issue 29's proof), through the real client: each does its
 * work where its profile lets it write, and nothing else lands on the host.
 * - server-filesystem, told to serve two folders but given only one to write: writes there, and
 *   a write the server itself allows in the other is refused by the sandbox (the file never appears);
 * - server-memory keeps its file in the server's own folder; left to its default (beside its own
 *   script, in node_modules) it cannot write, and the package folder stays untouched;
 * - a server started with `npx` (the launcher's cache and registry host added by its profile);
 * - an MCP Apps server (the published ext-apps example, server-basic-vanillajs): its app tool
 *   declares its page, the page is read, and the tool answers.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import { readResource } from '../../electron/mcp/features/resources.js';
import { ownFolderOf, ServerSandboxes } from '../../electron/sandbox/serverSandbox.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import { BASIC_APP_URI, BASIC_TOOL, BASIC_VANILLAJS } from '../doubles/servers/appsPeer.js';

const resolve = createRequire(import.meta.url).resolve;
const FILESYSTEM = resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY = resolve('@modelcontextprotocol/server-memory/dist/index.js');

describe.runIf(process.platform === 'linux')('real servers in the sandbox', () => {
  const scratch = scratchDir('mh-real-sandboxed-');
  const dataDir = join(scratch.dir, 'data');
  const project = join(scratch.dir, 'project');
  const elsewhere = join(scratch.dir, 'elsewhere');
  for (const folder of [dataDir, project, elsewhere]) mkdirSync(folder, { recursive: true });
  const sandboxes = new ServerSandboxes({ dataDir });
  const clients: MCPClient[] = [];

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    scratch.cleanup();
  });

  async function start(config: Record<string, unknown>): Promise<MCPClient> {
    const parsed = StdioServerConfigSchema.parse({ transport: 'stdio', timeoutMs: 60_000, ...config });
    const client = new MCPClient(parsed, { secrets: new DefaultSecretResolver(), sandboxes });
    clients.push(client);
    await client.initialize();
    return client;
  }

  const text = (result: { content: unknown[] }): string =>
    result.content.map((block) => (block as { text?: string }).text ?? '').join('\n');

  it('server-filesystem writes the folder it may write; a write it allows elsewhere is refused by the sandbox', async () => {
    const fs = await start({
      id: 'filesystem',
      name: 'Filesystem',
      command: process.execPath,
      // Both folders are the server's own allowed directories; only `project` is the sandbox's.
      args: [FILESYSTEM, project, elsewhere],
      sandbox: { enabled: true, write: [project] },
    });
    const inside = await fs.callTool('write_file', { path: join(project, 'note.txt'), content: 'inside' });
    expect(inside.isError ?? false).toBe(false);
    expect(readFileSync(join(project, 'note.txt'), 'utf8')).toBe('inside');

    const outside = await fs.callTool('write_file', { path: join(elsewhere, 'note.txt'), content: 'outside' });
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/EROFS|read-only|EACCES|EPERM/i);
    expect(existsSync(join(elsewhere, 'note.txt'))).toBe(false);
    // It still reads what it serves.
    const listed = await fs.callTool('list_directory', { path: project });
    expect(text(listed)).toContain('note.txt');
  }, 120_000);

  it("server-memory keeps its file in the server's own folder; its package folder is not writable", async () => {
    const own = ownFolderOf(dataDir, 'memory');
    const memoryFile = join(own, 'memory.jsonl');
    const memory = await start({
      id: 'memory',
      name: 'Memory',
      command: process.execPath,
      args: [MEMORY],
      env: { MEMORY_FILE_PATH: memoryFile },
      sandbox: { enabled: true },
    });
    const entities = [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }];
    const created = await memory.callTool('create_entities', { entities });
    expect(created.isError ?? false).toBe(false);
    expect(readFileSync(memoryFile, 'utf8')).toContain('Ada');

    const packageFolder = dirname(MEMORY);
    const before = readdirSync(packageFolder).sort();
    const defaulted = await start({
      id: 'memory-default',
      name: 'Memory (default path)',
      command: process.execPath,
      args: [MEMORY],
      sandbox: { enabled: true },
    });
    const refused = await defaulted.callTool('create_entities', { entities });
    expect(refused.isError).toBe(true);
    expect(readdirSync(packageFolder).sort()).toEqual(before);
  }, 120_000);

  it('a server started with npx runs (the launcher gets its cache)', async () => {
    const everything = await start({
      id: 'npx-everything',
      name: 'Everything via npx',
      command: 'npx',
      args: ['-y', '--offline', '@modelcontextprotocol/server-everything', 'stdio'],
      cwd: PROJECT_ROOT,
      sandbox: { enabled: true },
    });
    expect((await everything.listTools()).map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    expect(text(await everything.callTool('get-sum', { a: 2, b: 3 }))).toBe('The sum of 2 and 3 is 5.');
  }, 180_000);

  it('an MCP Apps server (the ext-apps example) runs sandboxed: its app page is read, its tool answers', async () => {
    const apps = await start({
      id: 'basic-app',
      name: 'Basic app',
      command: process.execPath,
      args: [BASIC_VANILLAJS, '--stdio'],
      sandbox: { enabled: true },
    });
    // Started through the sandbox's wrap (which made its own folder).
    expect(existsSync(ownFolderOf(dataDir, 'basic-app'))).toBe(true);
    const tool = (await apps.listTools()).find((t) => t.name === BASIC_TOOL);
    expect(JSON.stringify(tool)).toContain(BASIC_APP_URI);
    const page = await apps.featureRequest('resources/read', (sdk, o) => readResource(sdk, BASIC_APP_URI, o));
    const html = page.contents.map((c) => ('text' in c ? c.text : '')).join('');
    expect(html.toLowerCase()).toContain('<html');
    const called = await apps.callTool(BASIC_TOOL, {});
    expect(called.isError ?? false).toBe(false);
    expect(text(called)).toMatch(/\d{4}-\d{2}-\d{2}T/);
  }, 120_000);
});
