/** Servers: the list and live statuses come from main's events, including a reconnecting server. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerStatusView, ServerView } from '../../shared/contract.js';
import { StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { bindBridge } from '../../renderer/src/state/bindBridge.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { FakeClient, bridgeError } from '../doubles/renderer/fakeClient.js';

function server(id: string, status: ServerStatusView = { state: 'idle' }): ServerView {
  const config = StdioServerConfigSchema.parse({ id, name: `Server ${id}`, transport: 'stdio', command: 'node' });
  return { config, status, secrets: {}, toolCount: 0 };
}

describe('servers slice', () => {
  let client: FakeClient;
  let store: ReturnType<typeof createAppStore>;
  let unbind: () => void;
  const statuses = () => store.getState().servers.map((s) => [s.config.id, s.status]);

  beforeEach(() => {
    client = new FakeClient();
    store = createAppStore(client);
    unbind = bindBridge(client, store);
  });
  afterEach(() => unbind());

  it('an answer to a list request sent before a server was added does not take the new row away', async () => {
    client.connection.set({ status: 'open' });
    client.next('servers.list').resolve([server('a')]);
    await expect.poll(() => store.getState().serversLoad).toBe('ready');

    const stale = store.getState().loadServers(); // asked before the add
    client.emit('servers.changed', { servers: [server('a'), server('twin')] });
    client.next('servers.list').resolve([server('a')]); // answered from before the add
    await stale;
    expect(store.getState().servers.map((s) => s.config.id)).toEqual(['a', 'twin']);
  });

  it('the answer to a removal does not take away a server saved again under that id meanwhile', async () => {
    client.connection.set({ status: 'open' });
    client.next('servers.list').resolve([server('a'), server('twin', { state: 'ready' })]);
    await expect.poll(() => store.getState().serversLoad).toBe('ready');

    const removal = store.getState().removeServer('twin');
    client.emit('servers.changed', { servers: [server('a')] }); // removed (the event comes before the answer)
    client.emit('servers.changed', { servers: [server('a'), server('twin', { state: 'connecting' })] }); // saved again
    client.next('servers.remove').resolve({ removed: true, rulesRemoved: 0 });
    await removal;
    expect(statuses()).toEqual([
      ['a', { state: 'idle' }],
      ['twin', { state: 'connecting' }],
    ]);

    // With no new server under the id, the answer removes the row (whether or not its event came).
    const second = store.getState().removeServer('twin');
    client.next('servers.remove').resolve({ removed: true, rulesRemoved: 0 });
    await second;
    expect(statuses()).toEqual([['a', { state: 'idle' }]]);
  });

  it('loads the list when the link opens, then applies status events to the right server only', async () => {
    client.connection.set({ status: 'open' });
    client.next('servers.list').resolve([server('a'), server('b')]);
    await expect.poll(() => store.getState().serversLoad).toBe('ready');

    const listBefore = store.getState().servers;
    client.emit('server.status', { serverId: 'b', status: { state: 'connecting' }, at: 1 });
    expect(statuses()).toEqual([
      ['a', { state: 'idle' }],
      ['b', { state: 'connecting' }],
    ]);
    expect(store.getState().servers[0]).toBe(listBefore[0]); // the other server's view is untouched

    const reconnecting: ServerStatusView = {
      state: 'reconnecting',
      attempt: 2,
      nextRetryAt: 5_000,
      code: 'server_exited',
      reason: 'exited with code 1',
    };
    client.emit('server.status', { serverId: 'b', status: reconnecting, at: 2 });
    expect(store.getState().servers[1]?.status).toEqual(reconnecting);

    // The same status again is no change (no new list); an unknown server is ignored.
    const listNow = store.getState().servers;
    client.emit('server.status', { serverId: 'b', status: { ...reconnecting }, at: 3 });
    client.emit('server.status', { serverId: 'zzz', status: { state: 'ready' }, at: 4 });
    expect(store.getState().servers).toBe(listNow);

    client.emit('server.status', { serverId: 'b', status: { state: 'ready' }, at: 5 });
    expect(statuses()).toEqual([
      ['a', { state: 'idle' }],
      ['b', { state: 'ready' }],
    ]);
  });

  it('servers.changed replaces the list; a removed server takes its selection along', () => {
    client.emit('servers.changed', { servers: [server('a'), server('b', { state: 'ready' })] });
    store.getState().selectServer('b');
    expect(store.getState().selectedServerId).toBe('b');
    client.emit('servers.changed', {
      servers: [server('a', { state: 'error', code: 'timeout', reason: 'no answer' })],
    });
    expect(statuses()).toEqual([['a', { state: 'error', code: 'timeout', reason: 'no answer' }]]);
    expect(store.getState().selectedServerId).toBeUndefined();
  });

  it('a failed load says why; a refused session forgets the servers', async () => {
    const load = store.getState().loadServers();
    client.next('servers.list').reject(bridgeError('internal', 'the host failed'));
    await load;
    expect(store.getState()).toMatchObject({
      serversLoad: 'error',
      serversError: expect.stringContaining('the host failed'),
    });

    client.emit('servers.changed', { servers: [server('a')] });
    expect(store.getState().serversLoad).toBe('ready');
    client.connection.set({ status: 'unauthorized', reason: 'rejected' });
    expect(store.getState().servers).toEqual([]);
    expect(store.getState().serversLoad).toBe('idle');
  });
});
