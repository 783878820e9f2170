/**
 * The sandbox tests' stdio servers run in (issue 29: every stdio server is sandboxed by default,
 * and clients and registries cannot be built without one). One per test process, over a scratch
 * data folder of its own: each server's own folder is under it, the library's session is shared.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerSandboxOptions } from '../../electron/sandbox/serverSandbox.js';
import { ServerSandboxes } from '../../electron/sandbox/serverSandbox.js';

let shared: ServerSandboxes | undefined;

/** The process's shared sandboxes; a test that watches violations or needs its own data folder passes options. */
export function testSandboxes(options?: Partial<ServerSandboxOptions>): ServerSandboxes {
  if (options) return new ServerSandboxes({ dataDir: scratchDataDir(), ...options });
  shared ??= new ServerSandboxes({ dataDir: scratchDataDir() });
  return shared;
}

function scratchDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mh-sandbox-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
