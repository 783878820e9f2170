/**
 * Builds the object the preload exposes as `window.miniharness` (PreloadApi) from two narrow
 * transport functions, so the shape — and the promise that neither `ipcRenderer` nor the IPC
 * event object ever reaches the page — is tested in plain Node. The preload passes functions
 * bound to `ipcRenderer`; nothing else of it is reachable from the returned object.
 */
import type { DispatchResult } from '../../shared/bridge.js';
import type { ChannelName, EventName } from '../../shared/channelNames.js';
import { CHANNEL_NAMES, EVENT_NAMES } from '../../shared/channelNames.js';
import type { PreloadApi } from '../../shared/preloadApi.js';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../../shared/preloadApi.js';

/** An IPC listener as ipcRenderer calls it: the event object first, then the arguments. */
export type RawIpcListener = (event: unknown, ...args: unknown[]) => void;

export interface PreloadTransport {
  invoke(ipcChannel: string, ...args: unknown[]): Promise<unknown>;
  on(ipcChannel: string, listener: RawIpcListener): void;
  removeListener(ipcChannel: string, listener: RawIpcListener): void;
}

/** What a call resolves to when IPC itself failed (no handler yet, window closing). */
const IPC_FAILED: DispatchResult = {
  ok: false,
  error: { code: 'ipc_failed', message: 'The main process did not answer the call. Restart the app if this persists.' },
};

export function buildPreloadApi(transport: PreloadTransport): PreloadApi {
  const calls = {} as Record<ChannelName, (payload: unknown) => Promise<DispatchResult>>;
  for (const name of CHANNEL_NAMES) {
    calls[name] = async (payload: unknown) => {
      try {
        return (await transport.invoke(IPC_INVOKE_CHANNEL, name, payload)) as DispatchResult;
      } catch {
        // Electron's rejection text names internals; the renderer gets the contract's shape.
        return IPC_FAILED;
      }
    };
  }

  // One ipcRenderer listener for the event channel, whatever the number of subscribers: the page
  // subscribes to ~20 events, and as many ipcRenderer listeners on one channel would trip Node's
  // MaxListenersExceededWarning. It is added with the first subscriber and removed with the last.
  const subscribers = new Map<string, Set<(payload: unknown) => void>>();
  let total = 0;
  // The page gets the payload only: the IpcRendererEvent would hand it `sender` (ipcRenderer).
  const fanOut: RawIpcListener = (_event, eventName, payload) => {
    const listeners = typeof eventName === 'string' ? subscribers.get(eventName) : undefined;
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(payload);
      } catch (error) {
        // One failing subscriber must not starve the others; the error still reaches the console.
        // (a timer, a web API of the page's own world: the sandboxed preload has no Node globals).
        setTimeout(() => {
          throw error;
        }, 0);
      }
    }
  };

  const events = {} as Record<EventName, (listener: (payload: unknown) => void) => () => void>;
  for (const name of EVENT_NAMES) {
    events[name] = (listener: (payload: unknown) => void) => {
      if (typeof listener !== 'function') throw new TypeError(`events['${name}'] needs a listener function.`);
      // Each subscription is its own entry, so the same function subscribed twice is called twice.
      const entry = (payload: unknown) => listener(payload);
      let listeners = subscribers.get(name);
      if (!listeners) subscribers.set(name, (listeners = new Set()));
      listeners.add(entry);
      if (total++ === 0) transport.on(IPC_EVENT_CHANNEL, fanOut);
      let subscribed = true;
      return () => {
        if (!subscribed) return;
        subscribed = false;
        listeners.delete(entry);
        if (listeners.size === 0) subscribers.delete(name);
        if (--total === 0) transport.removeListener(IPC_EVENT_CHANNEL, fanOut);
      };
    };
  }

  return Object.freeze({ calls: Object.freeze(calls), events: Object.freeze(events) });
}
