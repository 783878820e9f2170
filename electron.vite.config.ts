import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { buildCli } from './scripts/buildCli.js';
import { buildGatewayStdio } from './scripts/buildGatewayStdio.js';

// The page's strict CSP meta tag blocks the inline scripts Vite's dev server injects (React
// refresh); in `electron-vite dev` only, the tag is dropped. Builds always keep it.
const devWithoutCspMeta: Plugin = {
  name: 'miniharness:dev-without-csp-meta',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace(/<meta\s+http-equiv="Content-Security-Policy"[^>]*>\s*/i, ''),
};

// The stdio entry agents spawn (bin/miniharness-gateway.mjs runs it with plain node) is bundled
// next to the main process after each main build: out/main is emptied at the start of that build.
const gatewayStdioEntry: Plugin = {
  name: 'miniharness:gateway-stdio-entry',
  // `miniharness` (serve and the command line, bin/miniharness.mjs) likewise.
  writeBundle: () => Promise.all([buildGatewayStdio(), buildCli()]).then(() => undefined),
};

// Builds the three parts without an Electron binary: main and preload (Node/Electron side) to
// out/main and out/preload, the renderer (React) to out/renderer — which browser mode serves too.
export default defineConfig({
  main: {
    plugins: [gatewayStdioEntry],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          main: resolve(__dirname, 'electron/main.ts'),
          // The WAL checkpointer's worker thread, a module of its own (storage/walCheckpointer.ts).
          walCheckpointWorker: resolve(__dirname, 'electron/storage/walCheckpointWorker.ts'),
          // The OTLP span export's worker thread (telemetry/workerExporter.ts).
          exportWorker: resolve(__dirname, 'electron/telemetry/exportWorker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: { input: { preload: resolve(__dirname, 'electron/preload.ts') }, output: { format: 'cjs' } },
    },
  },
  renderer: {
    root: resolve(__dirname, 'renderer'),
    plugins: [react(), devWithoutCspMeta],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      minify: true,
      rollupOptions: { input: { index: resolve(__dirname, 'renderer/index.html') } },
    },
  },
});
