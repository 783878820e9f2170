/**
 * The sandboxed preload: exposes `window.miniharness` (shared/preloadApi.ts) — one named function
 * per contract channel and one subscription per event — and nothing else. `ipcRenderer` stays
 * here; the page can only reach it through the functions below, and main checks the sender of
 * every message anyway. Sandboxed preloads can require only 'electron' (and a few built-ins), so
 * everything else imported here is plain data the bundler inlines (no zod).
 */
import { contextBridge, ipcRenderer } from 'electron';
import { PRELOAD_GLOBAL } from '../shared/preloadApi.js';
import { buildPreloadApi } from './shell/exposedApi.js';

const api = buildPreloadApi({
  invoke: (ipcChannel, ...args) => ipcRenderer.invoke(ipcChannel, ...args),
  on: (ipcChannel, listener) => {
    ipcRenderer.on(ipcChannel, listener);
  },
  removeListener: (ipcChannel, listener) => {
    ipcRenderer.removeListener(ipcChannel, listener);
  },
});

contextBridge.exposeInMainWorld(PRELOAD_GLOBAL, api);
