/**
 * Resources and prompts through the registry against the stdio fixture server with
 * FIXTURE_FEATURES=1 (test/doubles/servers/features.ts), whose lists come in pages and whose
 * changes the tests trigger: every page is followed, a list past the bounds is cut and says so, a
 * repeated cursor is refused, a prompt added at run time is listed again, and a subscription
 * outlives a crash of the server (it is renewed on the new connection).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPFeatureNotOfferedError } from '../../electron/mcp/features/errors.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { MAX_LISTED_ITEMS } from '../../shared/limits.js';
import { readEvents, scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';
import { nextFeatureEvent } from './featureEvents.js';
import { nextStatus } from './statusEvents.js';
import { testSandboxes } from '../helpers/sandboxes.js';

describe('resources and prompts of the paged fixture server', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let registry: MCPToolRegistry;
  const events = () => join(scratch.dir, 'events.jsonl');
  const add = async (id: string, env: Record<string, string> = {}): Promise<void> => {
    registry.addServer(
      stdioFixtureConfig(id, { FIXTURE_EVENTS: events(), FIXTURE_FEATURES: '1', FIXTURE_TOOLS: 'echo,crash', ...env }),
    );
    expect((await registry.connect(id)).status).toEqual({ state: 'ready' });
  };

  beforeEach(() => {
    scratch = scratchDir();
    registry = new MCPToolRegistry({
      secrets: new DefaultSecretResolver(),
      sandboxes: testSandboxes(),
      reconnect: { baseDelayMs: 50, maxDelayMs: 200 },
    });
  });
  afterEach(async () => {
    await registry.close();
    scratch.cleanup();
  });

  it('follows every page of resources/list, in order, and keeps the list for the connection', async () => {
    await add('fx');
    const catalog = await registry.features.resources('fx');
    expect(catalog.resources.items.map((r) => r.uri)).toEqual([
      'fixture://item/1',
      'fixture://item/2',
      'fixture://item/3',
      'fixture://item/4',
      'fixture://item/5',
      'fixture://image/dot.png',
      'fixture://blob/large',
      'fixture://text/large',
    ]);
    expect(catalog.resources.truncated).toBe(false);
    const pages = () =>
      readEvents(events()).filter((e) => e.event === 'resources/list') as unknown as Array<{ cursor: string | null }>;
    expect(pages().map((p) => p.cursor)).toEqual([null, '2', '4', '6']);
    // Kept: asking again sends nothing; a refresh lists anew.
    await registry.features.resources('fx');
    expect(pages()).toHaveLength(4);
    await registry.features.resources('fx', { refresh: true });
    expect(pages()).toHaveLength(8);
  });

  it('stops a list that passes the bounds and says it was cut', async () => {
    await add('many', { FIXTURE_RESOURCES: String(MAX_LISTED_ITEMS + 500), FIXTURE_PAGE_SIZE: '1000' });
    const catalog = await registry.features.resources('many');
    expect(catalog.resources.items).toHaveLength(MAX_LISTED_ITEMS);
    expect(catalog.resources.truncated).toBe(true);
    // It stopped asking once the bound was reached (the rest was never requested).
    expect(readEvents(events()).filter((e) => e.event === 'resources/list')).toHaveLength(
      Math.ceil(MAX_LISTED_ITEMS / 1000),
    );
  });

  it('refuses a server that repeats its cursor instead of looping', async () => {
    await add('loop', { FIXTURE_CURSOR_LOOP: '1' });
    await expect(registry.features.resources('loop')).rejects.toMatchObject({
      code: 'protocol',
      message: expect.stringContaining('repeated the cursor') as string,
    });
    expect(readEvents(events()).filter((e) => e.event === 'resources/list')).toHaveLength(2);
  });

  it('lists prompts page by page and again when the server adds one', async () => {
    await add('fx');
    expect((await registry.features.prompts('fx')).items.map((p) => p.name)).toEqual(['greet', 'farewell']);
    const changed = nextFeatureEvent(registry, (e) => e.type === 'prompts' && e.serverId === 'fx');
    // add_prompt sends notifications/prompts/list_changed; the kept list is fetched again, whole.
    await callFixtureTool(registry, 'fx', 'add_prompt', { name: 'welcome' });
    await changed;
    expect((await registry.features.prompts('fx')).items.map((p) => p.name)).toEqual(['greet', 'farewell', 'welcome']);
  });

  it('a subscription is renewed on the new connection after the server crashed, and its updates come through', async () => {
    await add('fx');
    await registry.features.subscribeResource('fx', 'fixture://item/2');
    const back = nextStatus(registry, 'fx', (s) => s.state === 'ready');
    const renewed = nextFeatureEvent(registry, (e) => e.type === 'resources' && e.serverId === 'fx');
    await expect(registry.callServerTool('fx', 'crash', {})).rejects.toMatchObject({ code: 'server_exited' });
    await back;
    await renewed;
    const subscribes = readEvents(events()).filter((e) => e.event === 'resources/subscribe');
    expect(subscribes).toHaveLength(2);
    expect(new Set(subscribes.map((e) => e.instance)).size).toBe(2);

    const updated = nextFeatureEvent(registry, (e) => e.type === 'resource_updated');
    expect(await callFixtureTool(registry, 'fx', 'touch', { uri: 'fixture://item/2' })).toBe(
      'updated fixture://item/2',
    );
    expect(await updated).toMatchObject({ serverId: 'fx', uri: 'fixture://item/2' });

    // Unsubscribing tells the server, which then has nobody to tell.
    expect(await registry.features.unsubscribeResource('fx', 'fixture://item/2')).toEqual([]);
    expect(readEvents(events()).filter((e) => e.event === 'resources/unsubscribe')).toHaveLength(1);
    expect(await callFixtureTool(registry, 'fx', 'touch', { uri: 'fixture://item/2' })).toBe(
      'nobody subscribed to fixture://item/2',
    );
  });

  it('refuses by code what the server did not declare, and passes on the server’s own refusal', async () => {
    registry.addServer(stdioFixtureConfig('plain', { FIXTURE_TOOLS: 'echo' }));
    await registry.connect('plain');
    await expect(registry.features.prompts('plain')).rejects.toBeInstanceOf(MCPFeatureNotOfferedError);
    await expect(registry.features.resources('plain')).rejects.toMatchObject({
      code: 'not_offered',
      feature: 'resources',
    });
    await expect(
      registry.features.complete('plain', {
        target: { type: 'prompt', name: 'x' },
        argument: { name: 'a', value: '' },
      }),
    ).rejects.toMatchObject({ code: 'not_offered' });

    await add('fx');
    await expect(registry.features.read('fx', 'fixture://nope')).rejects.toMatchObject({
      code: 'remote',
      details: { rpcCode: -32002 },
    });
    await expect(registry.features.getPrompt('fx', 'greet', {})).rejects.toMatchObject({
      code: 'remote',
      details: { rpcCode: -32602 },
    });
    await expect(registry.features.resources('gone')).rejects.toMatchObject({ code: 'config' });
  });
});

/** Calls a fixture tool through the registry (its tools were listed when it connected); returns the text. */
async function callFixtureTool(
  registry: MCPToolRegistry,
  serverId: string,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await registry.callServerTool(serverId, name, args);
  const first = result.content[0] as { text?: string } | undefined;
  return first?.text ?? '';
}
