import { EventEmitter } from 'node:events';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it, vi } from 'vitest';
import { CHANNEL_NAMES, EVENT_NAMES } from '../../shared/channelNames.js';
import { channels, events } from '../../shared/contract.js';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../../shared/preloadApi.js';
import type { PreloadTransport, RawIpcListener } from '../../electron/shell/exposedApi.js';
import { buildPreloadApi } from '../../electron/shell/exposedApi.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

describe('channel and event names (shared/channelNames.ts)', () => {
  // The typecheck already ties the contract's keys to these lists (`satisfies`); this pins the
  // order too, and that no name is listed twice.
  it('are the contract channels and events, in order, without duplicates', () => {
    expect(Object.keys(channels)).toEqual([...CHANNEL_NAMES]);
    expect(Object.keys(events)).toEqual([...EVENT_NAMES]);
    expect(new Set(CHANNEL_NAMES).size).toBe(CHANNEL_NAMES.length);
    expect(new Set(EVENT_NAMES).size).toBe(EVENT_NAMES.length);
  });

  it('reach the sandboxed preload without zod or the contract', async () => {
    // Bundled as electron-vite bundles it: whatever the preload imports ends up in it.
    const bundle = await build({
      entryPoints: [join(PROJECT_ROOT, 'electron', 'preload.ts')],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'cjs',
      external: ['electron'],
      logLevel: 'silent',
    });
    const inputs = Object.keys(bundle.metafile.inputs).map((file) => relative(PROJECT_ROOT, join(PROJECT_ROOT, file)));
    expect(inputs).toContain(join('shared', 'channelNames.ts'));
    expect(inputs.filter((file) => file.includes('node_modules') || file === join('shared', 'contract.ts'))).toEqual(
      [],
    );
  });
});

/** A double of ipcRenderer: an emitter whose listeners get (event, ...args), like Electron's. */
function fakeIpc(
  answer: (channel: string, ...args: unknown[]) => Promise<unknown> = async () => ({ ok: true, result: null }),
) {
  const emitter = new EventEmitter();
  const ipcEvent = { sender: { secret: 'the ipcRenderer itself' }, senderId: 0 };
  const transport: PreloadTransport & { emit(name: string, payload: unknown): void; count(): number } = {
    invoke: vi.fn(answer),
    on: (channel: string, listener: RawIpcListener) => void emitter.on(channel, listener),
    removeListener: (channel: string, listener: RawIpcListener) => void emitter.removeListener(channel, listener),
    emit: (name, payload) => void emitter.emit(IPC_EVENT_CHANNEL, ipcEvent, name, payload),
    count: () => emitter.listenerCount(IPC_EVENT_CHANNEL),
  };
  return transport;
}

describe('buildPreloadApi', () => {
  it('has exactly one function per channel and one subscription per event, and nothing else', () => {
    const api = buildPreloadApi(fakeIpc());
    expect(Object.keys(api).sort()).toEqual(['calls', 'events']);
    expect(Object.keys(api.calls).sort()).toEqual([...CHANNEL_NAMES].sort());
    expect(Object.keys(api.events).sort()).toEqual([...EVENT_NAMES].sort());
    for (const fn of [...Object.values(api.calls), ...Object.values(api.events)]) expect(typeof fn).toBe('function');
    expect(JSON.stringify(api)).not.toMatch(/ipcRenderer|invoke|send/);
    expect(Object.isFrozen(api) && Object.isFrozen(api.calls) && Object.isFrozen(api.events)).toBe(true);
  });

  it('calls invoke the single IPC channel with the channel name and payload', async () => {
    const ipc = fakeIpc(async () => ({ ok: true, result: [1] }));
    const api = buildPreloadApi(ipc);
    await expect(api.calls['servers.get']({ id: 'a' })).resolves.toEqual({ ok: true, result: [1] });
    expect(ipc.invoke).toHaveBeenCalledWith(IPC_INVOKE_CHANNEL, 'servers.get', { id: 'a' });
  });

  it('turns an IPC failure into the contract error shape without Electron internals', async () => {
    const api = buildPreloadApi(
      fakeIpc(async () =>
        Promise.reject(new Error("Error invoking remote method 'miniharness:invoke': No handler registered")),
      ),
    );
    const result = await api.calls['app.info']({});
    expect(result).toMatchObject({ ok: false, error: { code: 'ipc_failed' } });
    expect(JSON.stringify(result)).not.toContain('remote method');
  });

  it('delivers only the payload of the named event, never the IPC event object', () => {
    const ipc = fakeIpc();
    const api = buildPreloadApi(ipc);
    const listener = vi.fn();
    api.events['server.status'](listener);
    ipc.emit('tools.changed', { tools: [] });
    ipc.emit('server.status', { serverId: 'a' });
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener.mock.calls[0]).toEqual([{ serverId: 'a' }]);
  });

  it('unsubscribes (once, idempotently); one ipcRenderer listener serves every subscriber', () => {
    const ipc = fakeIpc();
    const api = buildPreloadApi(ipc);
    const listener = vi.fn();
    const other = vi.fn();
    const off = api.events['servers.changed'](listener);
    const otherOff = api.events['servers.changed'](other);
    expect(ipc.count()).toBe(1);
    off();
    off();
    expect(ipc.count()).toBe(1);
    ipc.emit('servers.changed', { servers: [] });
    expect(listener).not.toHaveBeenCalled();
    expect(other).toHaveBeenCalledTimes(1);
    otherOff();
    expect(ipc.count()).toBe(0);
    ipc.emit('servers.changed', { servers: [] });
    expect(other).toHaveBeenCalledTimes(1);
  });

  it('subscribing to every event (more than EventEmitter’s 10) adds one ipcRenderer listener and no warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning);
    process.on('warning', onWarning);
    const emitter = new EventEmitter();
    const api = buildPreloadApi({
      invoke: async () => null,
      on: (channel, listener) => void emitter.on(channel, listener),
      removeListener: (channel, listener) => void emitter.removeListener(channel, listener),
    });
    const calls: string[] = [];
    const offs = [...EVENT_NAMES, ...EVENT_NAMES].map((name) =>
      api.events[name]((payload) => calls.push(`${name}:${String(payload)}`)),
    );
    expect(offs.length).toBeGreaterThan(emitter.getMaxListeners() * 2);
    expect(emitter.listenerCount(IPC_EVENT_CHANNEL)).toBe(1);
    emitter.emit(IPC_EVENT_CHANNEL, {}, 'tools.changed', 1);
    expect(calls).toEqual(['tools.changed:1', 'tools.changed:1']);
    for (const off of offs) off();
    expect(emitter.listenerCount(IPC_EVENT_CHANNEL)).toBe(0);
    // Node emits the warning on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('a subscriber that throws does not keep the others from their event', async () => {
    const ipc = fakeIpc();
    const api = buildPreloadApi(ipc);
    const boom = new Error('subscriber failed');
    const after = vi.fn();
    api.events['servers.changed'](() => {
      throw boom;
    });
    api.events['servers.changed'](after);
    const reported = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    ipc.emit('servers.changed', { servers: [] });
    expect(after).toHaveBeenCalledTimes(1);
    await expect(reported).resolves.toBe(boom);
  });

  it('rejects a listener that is not a function', () => {
    const api = buildPreloadApi(fakeIpc());
    expect(() => api.events['server.log']('nope' as unknown as () => void)).toThrow(TypeError);
  });
});
