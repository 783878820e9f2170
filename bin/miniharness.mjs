#!/usr/bin/env node
// `miniharness serve` and the command line (electron/cli/main.ts): runs its build
// (out/main/miniharness.js, bundled by `npm run build`) with plain node, from any working folder.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../out/main/miniharness.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    `miniharness: the command is not built (${fileURLToPath(entry)} is missing): run npm run build in the MiniHarness folder.\n`,
  );
  process.exit(2);
}
await import(entry.href);
