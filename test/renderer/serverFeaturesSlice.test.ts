/**
 * The Resources and Prompts tabs' state: main's change events reload only the lists a tab showed,
 * a slower older load never replaces a newer one, a failure keeps the last list with main's error
 * (its code intact), subscriptions follow main's answer, updates are kept per resource, and a
 * refused session forgets all of it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bindBridge } from '../../renderer/src/state/bindBridge.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import type { PromptListView, ResourceListView, ServerView } from '../../shared/contract.js';
import { StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { FakeClient, bridgeError, settle } from '../doubles/renderer/fakeClient.js';

function resources(...uris: string[]): ResourceListView {
  return {
    resources: uris.map((uri) => ({ uri, name: uri })),
    templates: [],
    truncated: false,
    canSubscribe: true,
    subscribed: [],
  };
}

function server(id: string): ServerView {
  return {
    config: StdioServerConfigSchema.parse({ id, name: id, transport: 'stdio', command: 'node' }),
    status: { state: 'ready' },
    secrets: {},
    toolCount: 0,
  };
}

const prompts = (...names: string[]): PromptListView => ({
  prompts: names.map((name) => ({ name, arguments: [] })),
  truncated: false,
});

describe('server features slice', () => {
  let client: FakeClient;
  let store: ReturnType<typeof createAppStore>;
  let unbind: () => void;
  const state = () => store.getState();

  beforeEach(() => {
    client = new FakeClient();
    store = createAppStore(client);
    unbind = bindBridge(client, store);
  });
  afterEach(() => unbind());

  it('reloads on a change only the lists a tab showed', async () => {
    void state().loadResources('a');
    client.next('resources.list').resolve(resources('x://1'));
    await settle();
    expect(state().resourceLists.a?.data?.resources.map((r) => r.uri)).toEqual(['x://1']);

    client.emit('resources.changed', { serverId: 'a' });
    client.emit('resources.changed', { serverId: 'b' }); // never shown: nothing to reload
    client.emit('prompts.changed', { serverId: 'a' }); // its prompts were never shown either
    expect(client.callsTo('resources.list').map((c) => c.request)).toEqual([
      { serverId: 'a', refresh: false },
      { serverId: 'a', refresh: false },
    ]);
    expect(client.callsTo('prompts.list')).toHaveLength(0);
    // The old list stays on screen while the new one loads.
    expect(state().resourceLists.a).toMatchObject({ loading: true, data: { resources: [{ uri: 'x://1' }] } });
    client.next('resources.list').resolve(resources('x://1', 'x://2'));
    await settle();
    expect(state().resourceLists.a?.data?.resources).toHaveLength(2);
  });

  it('applies the newest load only, and keeps the last list with main’s error when a load fails', async () => {
    void state().loadPrompts('a');
    void state().loadPrompts('a', true);
    const [older, newer] = client.callsTo('prompts.list');
    expect(newer?.request).toEqual({ serverId: 'a', refresh: true });
    newer!.resolve(prompts('new'));
    await settle();
    older!.resolve(prompts('old'));
    await settle();
    expect(state().promptLists.a?.data?.prompts.map((p) => p.name)).toEqual(['new']);

    void state().loadPrompts('a');
    client.next('prompts.list').reject(bridgeError('unavailable', 'Server "a" is not available'));
    await settle();
    expect(state().promptLists.a?.data?.prompts.map((p) => p.name)).toEqual(['new']);
    expect(state().promptLists.a?.error?.code).toBe('unavailable');
  });

  it('follows main’s answer to subscribe and unsubscribe; a refused one becomes a notice', async () => {
    void state().loadResources('a');
    client.next('resources.list').resolve(resources('x://1'));
    await settle();
    const subscribing = state().setSubscribed('a', 'x://1', true);
    expect(client.next('resources.subscribe').request).toEqual({ serverId: 'a', uri: 'x://1' });
    client.next('resources.subscribe').resolve({ subscribed: ['x://1'] });
    await subscribing;
    expect(state().resourceLists.a?.data?.subscribed).toEqual(['x://1']);

    const refused = state().setSubscribed('a', 'x://1', false);
    client.next('resources.unsubscribe').reject(bridgeError('timeout'));
    await refused;
    expect(state().resourceLists.a?.data?.subscribed).toEqual(['x://1']);
    expect(state().notices.at(-1)?.text).toContain('Unsubscribing from x://1 failed');
  });

  it('forgets the lists of a server that is gone', async () => {
    void state().loadResources('a');
    void state().loadResources('b');
    client.next('resources.list').resolve(resources('a://1'));
    client.next('resources.list').resolve(resources('b://1'));
    client.emit('resources.updated', { serverId: 'a', uri: 'a://1', at: 1 });
    await settle();
    client.emit('servers.changed', { servers: [server('b')] });
    expect(Object.keys(state().resourceLists)).toEqual(['b']);
    expect(state().resourceUpdates).toEqual({});
  });

  it('keeps when each resource last changed, and forgets everything when the session is refused', async () => {
    client.emit('resources.updated', { serverId: 'a', uri: 'x://1', at: 10 });
    client.emit('resources.updated', { serverId: 'a', uri: 'x://2', at: 11 });
    client.emit('resources.updated', { serverId: 'a', uri: 'x://1', at: 12 });
    expect(state().resourceUpdates).toEqual({ a: { 'x://1': 12, 'x://2': 11 } });

    void state().loadResources('a');
    client.next('resources.list').resolve(resources('x://1'));
    await settle();
    client.connection.set({ status: 'unauthorized', reason: 'rejected' });
    expect(state().resourceLists).toEqual({});
    expect(state().resourceUpdates).toEqual({});
  });
});
