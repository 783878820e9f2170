/**
 * Bundles a fixture server into one plain-JS file, so each spawned test server starts in plain
 * Node (~0.2 s) instead of compiling TypeScript at every start (~0.8 s with tsx). The stdio
 * fixture is bundled once per test run (Vitest global setup) and by the benchmarks; the other
 * peers (era, task, apps, side-effect servers) once per test file, through `bundledOnce`.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';
import { BUILT_STDIO_FIXTURE, STDIO_FIXTURE } from './fixtures.js';

/** Bundles `source` (TypeScript) to `outfile` (ESM for Node). */
export async function bundleServer(source: string, outfile: string): Promise<void> {
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
    // Some bundled CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
}

/** A build function that bundles `source` the first time it is called in this process, and waits for that bundle after. */
export function bundledOnce(source: string, outfile: string): () => Promise<void> {
  let built: Promise<void> | undefined;
  return () => (built ??= bundleServer(source, outfile));
}

export async function buildFixtureServers(): Promise<void> {
  await bundleServer(STDIO_FIXTURE, BUILT_STDIO_FIXTURE);
}
