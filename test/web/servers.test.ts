import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerView } from '../../shared/contract.js';
import type { HttpFixture } from '../doubles/servers/http-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir, waitFor } from '../helpers/fixtures.js';
import type { RunningHost } from './host.js';
import { BridgeClient, startTestHost } from './host.js';

const GOOD_TOKEN = 'srv-token-7f3a9c2e1b4d6f80';
const WRONG_TOKEN = 'srv-token-wrong-000000000';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('servers over the contract (core + bridge, real servers)', () => {
  const scratch = scratchDir();
  let running: RunningHost;
  let client: BridgeClient;
  let http: HttpFixture;

  async function status(id: string): Promise<ServerView['status']> {
    const reply = await client.call('servers.get', { id });
    if (!reply.ok) throw new Error(reply.error.message);
    return (reply.result as { server: ServerView }).server.status;
  }

  beforeAll(async () => {
    http = await startHttpFixture({ token: GOOD_TOKEN });
    running = await startTestHost(scratch.dir);
    client = await BridgeClient.connect(running.host.port);
  });
  afterAll(async () => {
    client.close();
    await running.close();
    await http.close();
    scratch.cleanup();
  });

  it('adds a stdio server: it connects and its negotiated metadata is shown', async () => {
    const saved = await client.call('servers.save', {
      mode: 'create',
      config: {
        id: 'fixture',
        name: 'Fixture',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
      },
    });
    expect(saved).toMatchObject({ ok: true, result: { config: { id: 'fixture' } } });
    await waitFor(async () => (await status('fixture')).state === 'ready', 10_000);
    const detail = await client.call('servers.get', { id: 'fixture' });
    expect(detail).toMatchObject({
      ok: true,
      result: {
        negotiated: {
          protocolVersion: '2025-11-25',
          serverInfo: { name: 'fixture-stdio' },
          capabilities: { tools: { listChanged: true } },
        },
      },
    });
    expect(
      client.events.some(
        (e) => e.event === 'server.status' && (e.payload as { status: { state: string } }).status.state === 'ready',
      ),
    ).toBe(true);
    expect(client.events.some((e) => e.event === 'servers.changed')).toBe(true);
  });

  it('an HTTP server with a wrong token shows an auth error; replacing the token makes it ready', async () => {
    const config = {
      id: 'remote',
      name: 'Remote',
      transport: 'http',
      url: http.url,
      auth: { kind: 'bearer', token: { source: 'store', key: 'auth.token' } },
    };
    const saved = await client.call('servers.save', { mode: 'create', config, secrets: { 'auth.token': WRONG_TOKEN } });
    expect(saved).toMatchObject({ ok: true, result: { secrets: { 'auth.token': 'set' } } });
    await waitFor(async () => (await status('remote')).state === 'error', 10_000);
    expect(await status('remote')).toMatchObject({ state: 'error', code: 'auth' });

    const replaced = await client.call('servers.save', {
      mode: 'update',
      config,
      secrets: { 'auth.token': GOOD_TOKEN },
    });
    expect(replaced.ok).toBe(true);
    await waitFor(async () => (await status('remote')).state === 'ready', 10_000);
    // Editing without sending the secret again keeps the stored one.
    const renamed = await client.call('servers.save', {
      mode: 'update',
      config: { ...config, name: 'Remote (renamed)' },
    });
    expect(renamed).toMatchObject({
      ok: true,
      result: { config: { name: 'Remote (renamed)' }, secrets: { 'auth.token': 'set' } },
    });
  });

  it('invalid input gives field errors and saves nothing', async () => {
    const before = readFileSync(join(running.dataDir, 'config.json'), 'utf8');
    const bad = await client.call('servers.save', {
      mode: 'create',
      config: {
        id: 'Bad Id',
        name: '',
        transport: 'http',
        url: 'not a url',
        auth: { kind: 'bearer', token: { source: 'store', key: 'auth.token' } },
      },
    });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.error.code).toBe('validation');
    expect(Object.keys(bad.error.details?.fieldErrors ?? {}).sort()).toEqual(['auth.token', 'id', 'name', 'url']);
    expect(readFileSync(join(running.dataDir, 'config.json'), 'utf8')).toBe(before);
    const dup = await client.call('servers.save', {
      mode: 'create',
      config: { id: 'fixture', name: 'Again', transport: 'stdio', command: 'x' },
    });
    expect(dup).toMatchObject({
      ok: false,
      error: { code: 'validation', details: { fieldErrors: { id: ['a server with this id already exists'] } } },
    });
  });

  it('after a restart the servers are still there, and the token is only in the secret store', async () => {
    client.close();
    await running.close();
    running = await startTestHost(scratch.dir);
    client = await BridgeClient.connect(running.host.port);
    const list = await client.call('servers.list', {});
    expect(list.ok && (list.result as ServerView[]).map((s) => s.config.id).sort()).toEqual(['fixture', 'remote']);
    await waitFor(async () => (await status('remote')).state === 'ready', 10_000);
    for (const file of filesUnder(running.dataDir)) {
      const text = readFileSync(file).toString('latin1');
      const holds = text.includes(GOOD_TOKEN) || text.includes(WRONG_TOKEN);
      expect(holds, file).toBe(file.endsWith('secrets.json'));
    }
    const views = JSON.stringify(list);
    expect(views).not.toContain(GOOD_TOKEN);
  });

  it('removing a server deletes its secrets', async () => {
    expect(await client.call('servers.remove', { id: 'remote' })).toMatchObject({
      ok: true,
      result: { removed: true },
    });
    expect(readFileSync(join(running.dataDir, 'secrets.json'), 'utf8')).not.toContain(GOOD_TOKEN);
  });
});
