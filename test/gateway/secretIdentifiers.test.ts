/**
 * Secrets in what a server names things by (after issue 19, attack 2): a real stdio server names a
 * tool, a schema property, a resource, a template and a prompt by a stored secret it was given.
 * Those cannot be redacted without breaking every call that uses them, so they are left out: the
 * GUI's lists, agents of both eras (real SDK clients through the gateway) and the tool cache file
 * hold none of it, and the server's other tools, resources and prompts are listed as before.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LEAKY_SERVER, PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { connectAgent, connectModernAgent, startGatewayApp, saveServerListed } from './support.js';

const STORED = `stored-${randomBytes(8).toString('hex')}`;

describe('a server that names things by a secret it was given', () => {
  const scratch = scratchDir('mh-gateway-secret-names-');
  let app: GatewayApp;
  let legacy: Client;
  let modern: ModernClient;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(
      app,
      {
        id: 'leaky',
        name: 'Leaky',
        transport: 'stdio',
        command: process.execPath,
        args: ['--import', 'tsx', LEAKY_SERVER],
        cwd: PROJECT_ROOT,
        timeoutMs: 20_000,
        env: {
          LEAK_VALUES: 'STORED_KEY',
          LEAK_IN_NAMES: '1',
          STORED_KEY: { secret: { source: 'store', key: 'env.STORED_KEY' } },
        },
      },
      { 'env.STORED_KEY': STORED },
    );
    const agent = await app.createAgent('Reader');
    legacy = await connectAgent(app.url, agent.token, 'legacy-reader');
    modern = await connectModernAgent(app.url, agent.token, 'modern-reader');
  }, 90_000);

  afterAll(async () => {
    await legacy?.close();
    await modern?.close();
    await app?.close();
    scratch.cleanup();
  });

  it('agents of both eras list none of it; the rest is listed', async () => {
    for (const agent of [legacy, modern]) {
      const lists = [
        await agent.listTools(),
        await agent.listResources(),
        await agent.listResourceTemplates(),
        await agent.listPrompts(),
      ];
      expect(JSON.stringify(lists)).not.toContain(STORED);
      const [{ tools }, { resources }, { resourceTemplates }, { prompts }] = lists as [
        { tools: Array<{ name: string }> },
        { resources: Array<{ uri: string }> },
        { resourceTemplates: Array<{ uriTemplate: string }> },
        { prompts: Array<{ name: string }> },
      ];
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['leaky__leak', 'leaky__progress_leak']));
      expect(tools.map((t) => t.name)).not.toContain('leaky__keyed');
      expect(resources.map((r) => r.uri)).toContain('leak://leaky/doc');
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('shared://item/{id}');
      expect(prompts.map((p) => p.name)).toContain('leaky__leaky');
    }
  });

  it('the GUI’s lists and every file of the data folder (the secret store aside) hold none of it', async () => {
    const gui = [
      await app.call('tools.list'),
      await app.call('resources.list', { serverId: 'leaky' }),
      await app.call('prompts.list', { serverId: 'leaky' }),
    ];
    expect(JSON.stringify(gui)).not.toContain(STORED);
    const files = readdirSync(app.dataDir, { recursive: true, encoding: 'utf8' })
      .map((name) => join(app.dataDir, name))
      .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true && !path.endsWith('secrets.json'));
    expect(files.filter((path) => readFileSync(path).includes(Buffer.from(STORED)))).toEqual([]);
  });
});
