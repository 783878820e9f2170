/**
 * The macOS `sandbox-exec` profile (SBPL) for one sandboxed command.
 *
 * Deny by default, then allow what ordinary command-line programs need: running and forking
 * programs, reading the file system, a few system services (user and group lookups, logging,
 * notifications), terminals. Writes go only to the workspace and to the standard devices; the
 * masked folders (data folder, home folder) cannot be read, except the workspace inside them;
 * the network is closed unless the policy allows it. In SBPL the last matching rule wins, which
 * is what lets the workspace be carved back out of a masked home folder.
 *
 * No path is ever written into the profile text: paths are passed as `-D NAME=value` parameters
 * and the profile refers to them with `(param "NAME")`, so no file name can change the profile.
 *
 * Limits: not run in CI (no macOS there); `sandbox-exec` is deprecated by Apple but still ships
 * and is what other tools use for this.
 */
import type { SandboxPolicy, SandboxedCommand } from './types.js';

/** System services (mach-lookup) a plain command needs; everything else stays closed. */
const MACH_SERVICES = [
  'com.apple.system.opendirectoryd.libinfo',
  'com.apple.system.opendirectoryd.membership',
  'com.apple.system.DirectoryService.libinfo_v1',
  'com.apple.system.logger',
  'com.apple.system.notification_center',
  'com.apple.logd',
  'com.apple.diagnosticd',
  'com.apple.trustd.agent',
];

/** Device files a command may write: output sinks and its terminal. */
const WRITABLE_DEVICES = ['/dev/null', '/dev/zero', '/dev/tty', '/dev/stdout', '/dev/stderr', '/dev/dtracehelper'];

export interface SandboxExecProfile {
  /** The SBPL text, with `(param "…")` references only. */
  profile: string;
  /** The values of those parameters, passed as `-D NAME=value`. */
  params: Record<string, string>;
}

function quote(text: string): string {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

export function sandboxExecProfile(policy: SandboxPolicy): SandboxExecProfile {
  if (policy.writable.length === 0) throw new Error('The sandbox needs at least one writable folder (the workspace).');
  const params: Record<string, string> = {};
  const writable = [...new Set(policy.writable)];
  writable.forEach((w, i) => (params[`WORKSPACE_${i}`] = w));
  const masked = [...new Set(policy.masked)].filter((m) => m !== '/' && !writable.includes(m));
  masked.forEach((m, i) => (params[`MASKED_${i}`] = m));
  // The workspaces' parents: a program resolving its cwd (getcwd, realpath) must stat them.
  const parents = [
    ...new Set(
      writable.flatMap((w) =>
        w
          .split('/')
          .slice(1, -1)
          .map((_, i, parts) => `/${parts.slice(0, i + 1).join('/')}`),
      ),
    ),
  ];
  parents.forEach((p, i) => (params[`PARENT_${i}`] = p));
  for (const [name, value] of Object.entries(params)) {
    if (!value.startsWith('/') || /[\0\n\r]/.test(value))
      throw new Error(`The sandbox needs an absolute path for ${name}, not "${value}".`);
  }
  const maskedRefs = masked.map((_, i) => `(subpath (param "MASKED_${i}"))`).join(' ');
  const workspaceRefs = writable.map((_, i) => `(subpath (param "WORKSPACE_${i}"))`).join(' ');

  const lines = [
    '(version 1)',
    '(deny default)',
    '',
    ';; Programs and their children.',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow user-preference-read)',
    '(allow pseudo-tty)',
    '(allow ipc-posix-shm-read-data ipc-posix-shm-read-metadata (ipc-posix-name "apple.shm.notification_center"))',
    `(allow mach-lookup ${MACH_SERVICES.map((s) => `(global-name ${quote(s)})`).join(' ')})`,
    '',
    ';; Reading: everything but the masked folders; the workspace is readable even inside one.',
    '(allow file-read*)',
    ...(masked.length ? [`(deny file-read* ${maskedRefs})`] : []),
    `(allow file-read* ${workspaceRefs})`,
    ...(parents.length
      ? [`(allow file-read-metadata ${parents.map((_, i) => `(literal (param "PARENT_${i}"))`).join(' ')})`]
      : []),
    '',
    ';; Writing: the workspace and the standard devices only.',
    `(allow file-write* ${workspaceRefs} ${WRITABLE_DEVICES.map((d) => `(literal ${quote(d)})`).join(' ')})`,
    `(allow file-ioctl ${WRITABLE_DEVICES.map((d) => `(literal ${quote(d)})`).join(' ')} (regex #"^/dev/ttys[0-9]+$"))`,
    '',
    policy.network ? ';; Network: allowed for this call.' : ';; Network: closed (deny default covers network*).',
    ...(policy.network
      ? [
          '(allow network* system-socket)',
          '(allow mach-lookup (global-name "com.apple.dnssd.service") (global-name "com.apple.SystemConfiguration.configd"))',
        ]
      : []),
  ];
  return { profile: `${lines.join('\n')}\n`, params };
}

/** `sandbox-exec -p <profile> -D NAME=value … -- argv…`. */
export function sandboxExecCommand(
  executable: string,
  policy: SandboxPolicy,
  argv: readonly string[],
): SandboxedCommand {
  if (argv.length === 0) throw new Error('The sandbox needs a command to run.');
  const { profile, params } = sandboxExecProfile(policy);
  return {
    file: executable,
    args: [
      '-p',
      profile,
      ...Object.entries(params).flatMap(([name, value]) => ['-D', `${name}=${value}`]),
      '--',
      ...argv,
    ],
    env: {},
  };
}
