/**
 * "Add to …" (electron/core/agentConfigFiles.ts) on config files as the applications write them
 * (test/fixtures/agentConfigs): the gateway's entry goes in, the importer's own reader finds it
 * and every server that was there, everything else keeps its bytes (the change is one insertion),
 * the backup beside holds the old bytes, and Undo puts them back. A file that does not parse is
 * left as it was; an Undo after the application changed the file is refused. Through the core:
 * the entry carries the gateway's real port and the agent's own token, and a wrong token writes nothing.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentClient, AgentConfigEntry, ClientConfigWrite } from '../../shared/agentConfigs.js';
import { agentConfigEntry } from '../../shared/agentConfigs.js';
import { GATEWAY_TOKEN_ENV } from '../../shared/agents.js';
import { AgentConfigFiles, clientConfigPath } from '../../electron/core/agentConfigFiles.js';
import type { ClientPlaces } from '../../electron/core/agentConfigFiles.js';
import { planImport } from '../../electron/core/importer.js';
import { parseStdioArgs } from '../../electron/gateway/stdioArgs.js';
import { startGatewayApp } from '../gateway/support.js';

const FIXTURES = join(dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'agentConfigs');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

const INPUT = {
  agentName: 'Claude',
  token: 'mhg_test-token',
  url: 'http://127.0.0.1:51234/mcp',
  stdio: { command: '/usr/bin/node', args: ['/opt/mh/bin/miniharness-gateway.mjs'] },
};

let dir: string;
let places: ClientPlaces;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mh-agent-configs-'));
  places = { platform: 'linux', home: join(dir, 'home'), env: {} };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function place(client: AgentClient, bytes: Buffer): string {
  const path = clientConfigPath(client, places);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes, { mode: 0o640 });
  return path;
}

/** `after` is `before` with one run of text inserted: everything else kept byte for byte. */
function insertedText(before: string, after: string): string {
  let start = 0;
  while (start < before.length && before[start] === after[start]) start++;
  let end = 0;
  while (end < before.length - start && before.at(-1 - end) === after.at(-1 - end)) end++;
  expect(start + end, 'every byte of the file is still there, in order').toBe(before.length);
  return after.slice(start, after.length - end);
}

function expectEntryImported(text: string, path: string, others: string[], entry: AgentConfigEntry): void {
  const plan = planImport(text, basename(path));
  const names = plan.servers.map((s) => s.name);
  expect(names).toEqual(expect.arrayContaining([...others, 'miniharness']));
  const ours = plan.servers.find((s) => s.name === 'miniharness');
  expect(ours?.problems).toEqual([]);
  if ('command' in entry.value) {
    expect(ours?.config).toMatchObject({ transport: 'stdio', command: INPUT.stdio.command, args: entry.value.args });
    expect(ours?.fileSecrets).toEqual({ [`env.${GATEWAY_TOKEN_ENV}`]: INPUT.token });
  } else {
    expect(ours?.config).toMatchObject({ transport: 'streamable_http', url: INPUT.url });
    expect(ours?.fileSecrets).toEqual({ 'auth.token': INPUT.token });
  }
}

const CASES: Array<{ client: AgentClient; file: string; others: string[] }> = [
  { client: 'claude-desktop', file: 'claude_desktop_config.json', others: ['filesystem', 'memory'] },
  { client: 'claude-desktop', file: 'claude_desktop_config.windows.json', others: [] },
  { client: 'vscode', file: 'vscode-mcp.json', others: ['Perplexity', 'fetch', 'github'] },
  { client: 'cursor', file: 'cursor-mcp.json', others: ['postgres', 'linear'] },
  { client: 'claude-code', file: 'claude-code.claude.json', others: ['sentry'] },
];

describe('Add to … on the applications’ own files', () => {
  for (const { client, file, others } of CASES) {
    it(`${client} (${file}): the entry is added, the rest keeps its bytes, the backup and Undo restore them`, async () => {
      const before = fixture(file);
      const path = place(client, before);
      const files = new AgentConfigFiles(places);
      const entry = agentConfigEntry(client, INPUT);

      const write = await files.add(client, entry);
      const after = readFileSync(path, 'utf8');
      expect(write).toMatchObject({ client, path, replaced: false });
      const inserted = insertedText(before.toString('utf8'), after);
      expect(inserted).toContain('"miniharness"');
      // The file's own line ends and indentation.
      if (before.includes('\r\n')) expect(after.replace(/\r\n/g, '')).not.toContain('\n');
      if (before.includes('\t')) expect(after).toMatch(/\n\t\t"miniharness": \{\n\t\t\t"type"/);
      expectEntryImported(after, path, others, entry);
      expect(statSync(path).mode & 0o777).toBe(0o640);

      expect(readFileSync(write.backupPath!)).toEqual(before);
      expect(dirname(write.backupPath!)).toBe(dirname(path));

      await expect(files.undo(write.undoId)).resolves.toEqual({ path });
      expect(readFileSync(path)).toEqual(before);
      expect(readdirSync(dirname(path)).filter((name) => name.includes('miniharness-backup'))).toEqual([]);
    });
  }

  it('a second Add to replaces the entry (the new port) and keeps the rest', async () => {
    const before = fixture('vscode-mcp.json');
    const path = place('vscode', before);
    const files = new AgentConfigFiles(places);
    await files.add('vscode', agentConfigEntry('vscode', INPUT));
    const moved = { ...INPUT, url: 'http://127.0.0.1:40000/mcp' };
    const second = await files.add('vscode', agentConfigEntry('vscode', moved));
    expect(second.replaced).toBe(true);
    const plan = planImport(readFileSync(path, 'utf8'), 'mcp.json');
    expect(plan.servers.filter((s) => s.name === 'miniharness').map((s) => s.config?.url)).toEqual([moved.url]);
    expect(plan.servers).toHaveLength(4);
    // Undo of the second write gives back the first one's bytes; of the first, the fixture's.
    await files.undo(second.undoId);
    expect(
      planImport(readFileSync(path, 'utf8'), 'mcp.json').servers.find((s) => s.name === 'miniharness')?.config,
    ).toMatchObject({ url: INPUT.url });
  });

  it('a file that does not parse is left untouched, with no backup, and the error says why', async () => {
    const before = fixture('broken-mcp.json');
    const path = place('cursor', before);
    const files = new AgentConfigFiles(places);
    await expect(files.add('cursor', agentConfigEntry('cursor', INPUT))).rejects.toMatchObject({
      code: 'agent_config_unreadable',
      message: expect.stringContaining('left as it was'),
    });
    expect(readFileSync(path)).toEqual(before);
    expect(readdirSync(dirname(path))).toEqual(['mcp.json']);
  });

  it('a servers section that is not an object is refused the same way', async () => {
    const before = Buffer.from('{ "servers": ["not", "an", "object"] }\n');
    const path = place('vscode', before);
    await expect(new AgentConfigFiles(places).add('vscode', agentConfigEntry('vscode', INPUT))).rejects.toMatchObject({
      code: 'agent_config_unreadable',
    });
    expect(readFileSync(path)).toEqual(before);
  });

  it('no file yet: it is created for its owner only, and Undo removes it', async () => {
    const files = new AgentConfigFiles(places);
    const write = await files.add('claude-desktop', agentConfigEntry('claude-desktop', INPUT));
    expect(write.backupPath).toBeUndefined();
    expect(write.path).toBe(join(places.home, '.config', 'Claude', 'claude_desktop_config.json'));
    expect(statSync(write.path).mode & 0o777).toBe(0o600);
    expectEntryImported(readFileSync(write.path, 'utf8'), write.path, [], agentConfigEntry('claude-desktop', INPUT));
    await files.undo(write.undoId);
    expect(readdirSync(dirname(write.path))).toEqual([]);
  });

  it('Undo after the application saved the file is refused and leaves the file (the backup is named)', async () => {
    const path = place('claude-code', fixture('claude-code.claude.json'));
    const files = new AgentConfigFiles(places);
    const write: ClientConfigWrite = await files.add('claude-code', agentConfigEntry('claude-code', INPUT));
    const changed = readFileSync(path, 'utf8').replace('"numStartups": 42', '"numStartups": 43');
    writeFileSync(path, changed);
    await expect(files.undo(write.undoId)).rejects.toMatchObject({
      code: 'agent_config_changed',
      message: expect.stringContaining(write.backupPath!),
    });
    expect(readFileSync(path, 'utf8')).toBe(changed);
    expect(readFileSync(write.backupPath!)).toEqual(fixture('claude-code.claude.json'));
  });

  it('each application’s file on each OS', () => {
    const mac: ClientPlaces = { platform: 'darwin', home: '/Users/ann', env: {} };
    const win: ClientPlaces = {
      platform: 'win32',
      home: 'C:\\Users\\ann',
      env: { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' },
    };
    const linux: ClientPlaces = { platform: 'linux', home: '/home/ann', env: { XDG_CONFIG_HOME: '/home/ann/.xdg' } };
    expect(clientConfigPath('claude-desktop', mac)).toBe(
      '/Users/ann/Library/Application Support/Claude/claude_desktop_config.json',
    );
    expect(clientConfigPath('claude-desktop', win)).toBe(
      'C:\\Users\\ann\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    );
    expect(clientConfigPath('claude-desktop', linux)).toBe('/home/ann/.xdg/Claude/claude_desktop_config.json');
    expect(clientConfigPath('vscode', mac)).toBe('/Users/ann/Library/Application Support/Code/User/mcp.json');
    expect(clientConfigPath('vscode', win)).toBe('C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\mcp.json');
    expect(clientConfigPath('vscode', { ...linux, env: {} })).toBe('/home/ann/.config/Code/User/mcp.json');
    expect(clientConfigPath('cursor', win)).toBe('C:\\Users\\ann\\.cursor\\mcp.json');
    expect(clientConfigPath('claude-code', mac)).toBe('/Users/ann/.claude.json');
  });
});

describe('agents.addToClient through the core', () => {
  it('writes the gateway’s real address and the agent’s token; a token not the agent’s writes nothing', async () => {
    const app = await startGatewayApp(dir, { clientConfigPlaces: places });
    try {
      const { id, token } = await app.createAgent('Desk');
      const other = await app.createAgent('Other');
      const refused = await app.core.dispatch('agents.addToClient', {
        id,
        client: 'claude-desktop',
        token: other.token,
      });
      expect(refused).toMatchObject({ ok: false, error: { code: 'agent_token_mismatch' } });
      expect(JSON.stringify(refused)).not.toContain(other.token);
      expect(() => readdirSync(join(places.home, '.config'))).toThrow();

      const write = await app.call<ClientConfigWrite>('agents.addToClient', { id, client: 'claude-desktop', token });
      const entry = (
        JSON.parse(readFileSync(write.path, 'utf8')) as {
          mcpServers: { miniharness: { args: string[]; env: Record<string, string> } };
        }
      ).mcpServers.miniharness;
      expect(parseStdioArgs(entry.args.slice(entry.args.indexOf('--client')), entry.env)).toEqual({
        ok: true,
        args: { client: 'Desk', url: app.url, token },
      });
      const cursor = await app.call<ClientConfigWrite>('agents.addToClient', { id, client: 'cursor', token });
      expect(planImport(readFileSync(cursor.path, 'utf8'), 'mcp.json').servers[0]?.config).toMatchObject({
        url: app.url.href,
      });
      await app.call('agents.undoAddToClient', { undoId: write.undoId });
      expect(readdirSync(dirname(write.path))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
