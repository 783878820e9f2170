/** The Electron transport: the preload's `window.miniharness` (one function per channel). */
import type { PreloadApi } from '../../../shared/preloadApi.js';
import { PRELOAD_GLOBAL } from '../../../shared/preloadApi.js';
import { observable } from './observable.js';
import type { ConnectionState, Transport } from './transport.js';
import { LOCAL_ERROR } from './transport.js';
import { messageOf } from './errors.js';

/** The preload API when running inside Electron, otherwise undefined. */
export function findPreloadApi(): PreloadApi | undefined {
  const candidate = (window as unknown as Record<string, unknown>)[PRELOAD_GLOBAL];
  return candidate && typeof candidate === 'object' ? (candidate as PreloadApi) : undefined;
}

export function createElectronTransport(api: PreloadApi): Transport {
  // IPC to the own main process cannot drop; the state is fixed.
  const connection = observable<ConnectionState>({ status: 'open' });
  return {
    connection,
    retryNow: () => undefined,
    async call(channel, payload) {
      const fn = api.calls[channel];
      if (typeof fn !== 'function') {
        return {
          ok: false,
          error: { code: LOCAL_ERROR.transport, message: `The app shell does not offer "${channel}".` },
        };
      }
      try {
        return await fn(payload);
      } catch (error) {
        return { ok: false, error: { code: LOCAL_ERROR.transport, message: messageOf(error) } };
      }
    },
    subscribe(event, listener) {
      const subscribe = api.events[event];
      return typeof subscribe === 'function' ? subscribe(listener) : () => undefined;
    },
  };
}
