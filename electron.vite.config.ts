import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

// The page's strict CSP meta tag blocks the inline scripts Vite's dev server injects (React
// refresh); in `electron-vite dev` only, the tag is dropped. Builds always keep it.
const devWithoutCspMeta: Plugin = {
  name: 'miniharness:dev-without-csp-meta',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace(/<meta\s+http-equiv="Content-Security-Policy"[^>]*>\s*/i, ''),
};

// Builds the three parts without an Electron binary: main and preload (Node/Electron side) to
// out/main and out/preload, the renderer (React) to out/renderer — which browser mode serves too.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: { input: { main: resolve(__dirname, 'electron/main.ts') } },
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
