/**
 * Bundles the gateway's stdio entry (electron/gateway/stdioCli.ts) into one Node ESM file,
 * out/main/gatewayStdio.js, that bin/miniharness-gateway.mjs runs with plain `node` (no tsx, no
 * sources). Every bare import stays external: they are the package's runtime "dependencies"
 * (test/gateway/stdioEntry.test.ts checks it). Run by the main build (electron.vite.config.ts)
 * and by the tests that spawn the bin.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const GATEWAY_STDIO_SOURCE = join(PROJECT_ROOT, 'electron', 'gateway', 'stdioCli.ts');
export const GATEWAY_STDIO_BUILD = join(PROJECT_ROOT, 'out', 'main', 'gatewayStdio.js');

export async function buildGatewayStdio(outfile = GATEWAY_STDIO_BUILD): Promise<void> {
  await build({
    entryPoints: [GATEWAY_STDIO_SOURCE],
    outfile,
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
  });
}
