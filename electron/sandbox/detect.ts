/**
 * Which OS sandbox can confine local commands here: bubblewrap on Linux, sandbox-exec on macOS,
 * otherwise none (run_command then always asks). Detected once per process.
 *
 * Finding the program is not enough: bwrap is often installed where it cannot work (a container
 * without user namespaces, a kernel that forbids them), so the probe runs it with the same
 * options a real command gets and trusts only a clean exit.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { SandboxInfo } from './types.js';

const PROBE_TIMEOUT_MS = 10_000;

/** Fixed system locations first: a PATH entry the agent could write to must not pick the sandbox. */
const BWRAP_LOCATIONS = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'];
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

async function isExecutable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

function run(file: string, args: string[]): Promise<{ ok: boolean; message: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: PROBE_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin' } }, (error, _stdout, stderr) => {
      const firstLine = String(stderr).trim().split('\n')[0] ?? '';
      resolve({ ok: !error, message: firstLine || (error ? error.message : '') });
    });
  });
}

async function findBwrap(path: string): Promise<string | undefined> {
  const candidates = [
    ...BWRAP_LOCATIONS,
    ...path
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, 'bwrap')),
  ];
  for (const candidate of candidates)
    if (candidate.startsWith('/') && (await isExecutable(candidate))) return candidate;
  return undefined;
}

export async function probeSandbox(
  platform: NodeJS.Platform = process.platform,
  path: string = process.env.PATH ?? '',
): Promise<SandboxInfo> {
  if (platform === 'linux') {
    const bwrap = await findBwrap(path);
    if (!bwrap)
      return {
        kind: 'none',
        detail:
          'bubblewrap (bwrap) is not installed, so commands cannot be confined. Install the "bubblewrap" package.',
      };
    const probe = await run(bwrap, [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--unshare-all',
      '--cap-drop',
      'ALL',
      '--die-with-parent',
      '--new-session',
      '--',
      'true',
    ]);
    return probe.ok
      ? {
          kind: 'bwrap',
          executable: bwrap,
          detail: `Commands run in bubblewrap (${bwrap}): only the workspace is writable; the data and home folders are hidden; no network unless a call asks for it.`,
        }
      : {
          kind: 'none',
          detail: `bubblewrap is installed but cannot run here (${probe.message || 'it failed'}); user namespaces may be disabled.`,
        };
  }
  if (platform === 'darwin') {
    if (!(await isExecutable(SANDBOX_EXEC)))
      return { kind: 'none', detail: 'sandbox-exec is missing, so commands cannot be confined.' };
    const probe = await run(SANDBOX_EXEC, ['-p', '(version 1)(allow default)', '--', '/usr/bin/true']);
    return probe.ok
      ? {
          kind: 'sandbox-exec',
          executable: SANDBOX_EXEC,
          detail:
            'Commands run under sandbox-exec: only the workspace is writable; the data and home folders are hidden; no network unless a call asks for it.',
        }
      : { kind: 'none', detail: `sandbox-exec cannot run here (${probe.message || 'it failed'}).` };
  }
  return { kind: 'none', detail: `There is no OS sandbox for commands on ${platform}.` };
}

let detected: Promise<SandboxInfo> | undefined;

/** The sandbox of this machine, probed on first use and remembered. */
export function detectSandbox(): Promise<SandboxInfo> {
  detected ??= probeSandbox().catch((error: unknown) => ({
    kind: 'none' as const,
    detail: `The sandbox check failed (${error instanceof Error ? error.message : String(error)}).`,
  }));
  return detected;
}
