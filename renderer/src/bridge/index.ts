/** Picks the transport for where the renderer runs: Electron's preload, or the browser-mode host. */
import type { BridgeClient } from './client.js';
import { createBridgeClient } from './client.js';
import { createElectronTransport, findPreloadApi } from './electronTransport.js';
import { takeSessionToken } from './session.js';
import { createWebSocketTransport } from './websocketTransport.js';

export function connectBridge(): BridgeClient {
  const preload = findPreloadApi();
  if (preload) return createBridgeClient(createElectronTransport(preload));
  return createBridgeClient(createWebSocketTransport(takeSessionToken()));
}

export type { BridgeClient } from './client.js';
export { BridgeError, messageOf } from './errors.js';
export type { ConnectionState } from './transport.js';
