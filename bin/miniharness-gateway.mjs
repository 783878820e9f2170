#!/usr/bin/env node
// The stdio entry of the agent gateway: runs its build (out/main/gatewayStdio.js, bundled from
// electron/gateway/stdioCli.ts by `npm run build`) with plain node, from any working folder.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../out/main/gatewayStdio.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    `miniharness-gateway: the stdio entry is not built (${fileURLToPath(entry)} is missing): run npm run build in the MiniHarness folder.\n`,
  );
  process.exit(2);
}
await import(entry.href);
