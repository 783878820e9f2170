/**
 * Bundles the stdio fixture server into one plain-JS file, so each spawned test server starts
 * in plain Node (~0.2 s) instead of compiling TypeScript at every start (~0.8 s with tsx).
 * Run once per test run (Vitest global setup) and by the benchmarks.
 */
import { build } from 'esbuild';
import { BUILT_STDIO_FIXTURE, STDIO_FIXTURE } from './fixtures.js';

export async function buildFixtureServers(): Promise<void> {
  await build({
    entryPoints: [STDIO_FIXTURE],
    outfile: BUILT_STDIO_FIXTURE,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    // Some bundled CommonJS dependencies call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
}
