/**
 * The policy for one command, from the tool's configuration: the workspace roots are writable;
 * the excluded folders (the app's data folder), the home folder and the per-user runtime folder
 * (session bus, keyring and agent sockets) are masked. Paths are resolved to real paths, since
 * both sandboxes compare real paths; folders that do not exist have nothing to hide and are left
 * out (bwrap could not mount over them on a read-only root anyway).
 */
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { bwrapCommand } from './bwrap.js';
import { sandboxExecCommand } from './sandboxExec.js';
import type { SandboxInfo, SandboxPolicy, SandboxedCommand } from './types.js';

export interface PolicyInput {
  roots: readonly string[];
  /** Folders no command may see (the app's data folder). */
  excluded: readonly string[];
  network: boolean;
  cwd: string;
  /** Where the home and runtime folders are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

async function real(path: string): Promise<string | undefined> {
  return realpath(resolve(path)).catch(() => undefined);
}

/** The folders masked besides the excluded ones: home and the per-user runtime folders. */
function personalFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  return [homedir(), env.HOME, env.XDG_RUNTIME_DIR, '/run/user'].filter(
    (p): p is string => typeof p === 'string' && p.startsWith('/'),
  );
}

export async function buildSandboxPolicy(input: PolicyInput): Promise<SandboxPolicy> {
  const writable: string[] = [];
  for (const root of input.roots) {
    const r = await real(root);
    if (!r) throw new Error(`The workspace folder "${root}" does not exist.`);
    writable.push(r);
  }
  const masked: string[] = [];
  for (const folder of [...input.excluded, ...personalFolders(input.env)]) {
    const r = await real(folder);
    if (r && !masked.includes(r)) masked.push(r);
  }
  return { writable, masked, network: input.network, cwd: (await real(input.cwd)) ?? resolve(input.cwd) };
}

/** The command to spawn instead of `argv`, or undefined when there is no sandbox. */
export function sandboxedCommand(
  info: SandboxInfo,
  policy: SandboxPolicy,
  argv: readonly string[],
): SandboxedCommand | undefined {
  if (info.kind === 'bwrap' && info.executable) return bwrapCommand(info.executable, policy, argv);
  if (info.kind === 'sandbox-exec' && info.executable) return sandboxExecCommand(info.executable, policy, argv);
  return undefined;
}
