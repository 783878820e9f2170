/**
 * The bubblewrap command line for one sandboxed command (Linux).
 *
 * The host's root is mounted read-only; /dev and /proc are fresh minimal ones; /tmp is a private
 * scratch tmpfs that vanishes with the command. Each masked folder (the data folder, the home
 * folder, the per-user runtime folder with its D-Bus and keyring sockets) is covered by an empty
 * read-only tmpfs, and the workspace is bound back read-write — the only host folder a command
 * can change. Mounts are applied parents first, so a workspace inside the home folder is bound
 * over the mask, and a masked folder inside the workspace is masked over the bind.
 *
 * Every namespace is unshared (no network: only a loopback of its own) unless the policy allows
 * the network; all capabilities are dropped (root on the host stays powerless inside: it could
 * otherwise unmount a mask); the command gets a new session (no TIOCSTI on our terminal) and
 * dies with its parent.
 */
import { posix } from 'node:path';
import type { SandboxPolicy, SandboxedCommand } from './types.js';

/** The private scratch folder every sandboxed command gets. */
const SANDBOX_TMP = '/tmp';

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}

function assertAbsolute(path: string, what: string): void {
  if (!posix.isAbsolute(path) || path.includes('\0'))
    throw new Error(`The sandbox needs an absolute ${what}, not "${path}".`);
}

export function bwrapArgs(policy: SandboxPolicy, argv: readonly string[]): string[] {
  if (policy.writable.length === 0) throw new Error('The sandbox needs at least one writable folder (the workspace).');
  for (const w of policy.writable) assertAbsolute(w, 'workspace path');
  assertAbsolute(policy.cwd, 'working folder');
  if (argv.length === 0) throw new Error('The sandbox needs a command to run.');
  const writable = [...new Set(policy.writable.map((w) => posix.normalize(w)))];
  // "/" can never be masked (it would hide the whole system), nor a workspace itself.
  const masked = [
    ...new Set(
      policy.masked.map((m) => (assertAbsolute(m, 'masked folder'), posix.normalize(m).replace(/(.)\/+$/, '$1'))),
    ),
  ].filter((m) => m !== '/' && !writable.includes(m) && m !== SANDBOX_TMP);

  type Mount = { path: string; args: string[] };
  const mounts: Mount[] = [
    { path: SANDBOX_TMP, args: ['--tmpfs', SANDBOX_TMP] },
    ...masked.map((m) => ({ path: m, args: ['--tmpfs', m] })),
    ...writable.map((w) => ({ path: w, args: ['--bind', w, w] })),
  ];
  // Stable sort: parents before children, so each mount lands on top of the one around it.
  mounts.sort((a, b) => depth(a.path) - depth(b.path));

  return [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...mounts.flatMap((m) => m.args),
    // After every mount: the masks become read-only (a bind under one stays writable).
    ...masked.flatMap((m) => ['--remount-ro', m]),
    '--unshare-all',
    ...(policy.network ? ['--share-net'] : []),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--chdir',
    policy.cwd,
    '--',
    ...argv,
  ];
}

export function bwrapCommand(executable: string, policy: SandboxPolicy, argv: readonly string[]): SandboxedCommand {
  return { file: executable, args: bwrapArgs(policy, argv), env: { TMPDIR: SANDBOX_TMP } };
}
