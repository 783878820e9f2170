/**
 * What the Electron preload exposes to the renderer as `window.miniharness`: one named function
 * per contract channel and one subscription per contract event — never `ipcRenderer`, never the
 * IPC event object. Browser mode offers the same shape over the WebSocket bridge.
 */
import type { DispatchResult } from './bridge.js';
import type { ChannelName, EventName } from './channelNames.js';

export interface PreloadApi {
  readonly calls: { readonly [C in ChannelName]: (payload: unknown) => Promise<DispatchResult> };
  readonly events: { readonly [E in EventName]: (listener: (payload: unknown) => void) => () => void };
}

/** The name under which the preload exposes the API in the renderer's main world. */
export const PRELOAD_GLOBAL = 'miniharness';
/** The single IPC channel the preload's functions use; main checks the sender on every message. */
export const IPC_INVOKE_CHANNEL = 'miniharness:invoke';
export const IPC_EVENT_CHANNEL = 'miniharness:event';
