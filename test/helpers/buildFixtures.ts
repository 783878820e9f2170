/**
 * Bundles a fixture server into one plain-JS file, so each spawned test server starts in plain
 * Node (~0.2 s) instead of compiling TypeScript at every start (~0.8 s with tsx). The stdio
 * fixture is bundled once per test run (Vitest global setup) and by the benchmarks; the other
 * peers (era, task, apps, side-effect servers) once per test file, through `bundledOnce`.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';
import { BUILT_STDIO_FIXTURE, STDIO_FIXTURE } from './fixtures.js';

/**
 * Bundles `source` (TypeScript) to `outfile` (ESM for Node). Written beside it and renamed into
 * place: test files in parallel workers bundle the same fixture, and a server started from the file
 * while another worker's esbuild rewrote it in place could read half a file (a syntax error, a
 * server that never became ready: seen once as a 60 s hook timeout in a full run). A rename swaps
 * the whole file at once; a process that opened the old one keeps reading it.
 */
export async function bundleServer(source: string, outfile: string): Promise<void> {
  mkdirSync(dirname(outfile), { recursive: true });
  const partial = `${outfile}.${process.pid}.${randomUUID()}.partial`;
  await build({
    entryPoints: [source],
    outfile: partial,
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
  renameSync(partial, outfile);
}

/** A build function that bundles `source` the first time it is called in this process, and waits for that bundle after. */
export function bundledOnce(source: string, outfile: string): () => Promise<void> {
  let built: Promise<void> | undefined;
  return () => (built ??= bundleServer(source, outfile));
}

export async function buildFixtureServers(): Promise<void> {
  await bundleServer(STDIO_FIXTURE, BUILT_STDIO_FIXTURE);
}
