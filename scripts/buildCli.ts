/**
 * Bundles the `miniharness` command (electron/cli/main.ts: `serve` and the command line) into one
 * Node ESM file, out/main/miniharness.js, that bin/miniharness.mjs runs with plain `node`. As for
 * the gateway's stdio entry (buildGatewayStdio.ts), every bare import stays external (the
 * package's runtime dependencies). It lives in out/main beside walCheckpointWorker.js, which the
 * storage layer starts from its own folder.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_BUILD = join(PROJECT_ROOT, 'out', 'main', 'miniharness.js');

export async function buildCli(outfile = CLI_BUILD): Promise<void> {
  await bundleNodeEntry(join(PROJECT_ROOT, 'electron', 'cli', 'main.ts'), outfile);
}

/** One TypeScript entry as one Node ESM file, its bare imports external (as the app's own entries are built). */
export async function bundleNodeEntry(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
  });
}
