/**
 * Two real stdio servers that list the same resource URI and the same template, behind the
 * gateway, read by agents of both eras (real SDK clients): a URI only one server offers keeps it;
 * a shared one is listed once per server under `miniharness://server/<id>/<uri>`, which reads
 * from that server; the bare shared URI is refused with the URIs to use instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LEAKY_SERVER, PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { connectAgent, connectModernAgent, startGatewayApp, saveServerListed } from './support.js';

const ns = (serverId: string, uri: string): string => `miniharness://server/${serverId}/${uri}`;

async function addServer(app: GatewayApp, id: string): Promise<void> {
  const config = {
    id,
    name: `Server ${id}`,
    transport: 'stdio',
    command: process.execPath,
    args: ['--import', 'tsx', LEAKY_SERVER],
    cwd: PROJECT_ROOT,
    timeoutMs: 20_000,
    env: { LEAK_NAME: id },
  };
  await saveServerListed(app, config);
  await app.call('permissions.setToolLevel', { serverId: id, toolName: 'resources/read', level: 'ALLOW' });
}

describe('a resource URI two servers offer, through the gateway', () => {
  const scratch = scratchDir('mh-gateway-shared-uri-');
  let app: GatewayApp;
  const agents: Array<{ era: string; client: Client | ModernClient }> = [];

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addServer(app, 'one');
    await addServer(app, 'two');
    const agent = await app.createAgent('Reader');
    agents.push(
      { era: 'legacy', client: await connectAgent(app.url, agent.token) },
      { era: 'modern', client: await connectModernAgent(app.url, agent.token) },
    );
  }, 90_000);

  afterAll(async () => {
    for (const { client } of agents) await client.close();
    await app?.close();
    scratch.cleanup();
  });

  it('lists a shared URI and template once per server, namespaced; a URI of one server keeps it', async () => {
    for (const { client } of agents) {
      const uris = (await client.listResources()).resources.map((r) => [
        r.uri,
        r._meta?.['io.miniharness/server'],
        r._meta?.['io.miniharness/uri'],
      ]);
      expect(uris).toEqual(
        expect.arrayContaining([
          ['leak://one/doc', 'one', undefined],
          ['leak://two/doc', 'two', undefined],
          [ns('one', 'shared://readme'), 'one', 'shared://readme'],
          [ns('two', 'shared://readme'), 'two', 'shared://readme'],
        ]),
      );
      expect(uris.map(([uri]) => uri)).not.toContain('shared://readme');
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
      expect(templates.sort()).toEqual([ns('one', 'shared://item/{id}'), ns('two', 'shared://item/{id}')]);
    }
  });

  it('a namespaced URI reads from the server it names, under the URI asked for; a unique URI reads as before', async () => {
    for (const { client } of agents) {
      const one = await client.readResource({ uri: ns('one', 'shared://readme') });
      expect(one.contents[0]).toMatchObject({ uri: ns('one', 'shared://readme'), text: 'one: shared://readme' });
      const two = await client.readResource({ uri: ns('two', 'shared://item/7') });
      expect(two.contents[0]).toMatchObject({ text: 'two: shared://item/7' });
      expect((await client.readResource({ uri: 'leak://two/doc' })).contents[0]).toMatchObject({
        uri: 'leak://two/doc',
        text: 'two: leak://two/doc',
      });
    }
  });

  it('a bare shared URI (listed, or made from a shared template) is refused with the URIs to read instead', async () => {
    for (const { client } of agents) {
      await expect(client.readResource({ uri: 'shared://readme' })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(
          `read ${ns('one', 'shared://readme')} or ${ns('two', 'shared://readme')} instead`,
        ),
      });
      await expect(client.readResource({ uri: 'shared://item/7' })).rejects.toThrow(
        /Several servers offer shared:\/\/item\/7/,
      );
      await expect(client.readResource({ uri: ns('three', 'shared://readme') })).rejects.toThrow(/Unknown resource/);
    }
  });
});
