/**
 * The sandbox profile of one stdio server (issue 29), computed from its configuration without
 * touching the disk (the caller resolves the command first: commandPath.ts), so each platform's
 * profile is unit-tested here on any machine.
 *
 * Defaults: the system is readable; the home folder (and, on Linux, every home under /home; on
 * macOS /Users), the app's data folder and the per-user runtime folder are not, except what is
 * listed. Writable: a folder of the server's own under the data folder, and its roots. No host.
 * Then what the server's launcher needs (launchers below), each addition kept with why it was
 * made, so the person sees what was added and can take it away by turning the launcher off.
 */
import { posix, win32 } from 'node:path';
import type { SandboxAdditionReason } from '../../shared/contract.js';
import type { ServerSandbox } from '../../shared/serverConfig.js';

/** Why an entry is in a profile: one code per kind of addition, for the GUI to explain (shared/contract). */
type ProfileAdditionReason = SandboxAdditionReason;

interface ProfileAddition {
  reason: ProfileAdditionReason;
  /** The launcher that asked for it, when one did. */
  launcher?: Launcher;
  read?: string[];
  write?: string[];
  hosts?: string[];
}

export type Launcher = 'npx' | 'uvx' | 'node' | 'python' | 'docker';

/** What one sandboxed server may touch, ready to hand to the library (runtimeConfig.ts). */
export interface ServerSandboxProfile {
  read: {
    /** Folders it may not read (the system is readable otherwise). */
    deny: string[];
    /** Folders it may read inside the denied ones (wins over `deny`). */
    allow: string[];
  };
  /** The only places it may write. */
  write: string[];
  /** `host[:port]` it may reach. */
  hosts: string[];
  /** Variables set for the server (its TMPDIR in its own folder). */
  env: Record<string, string>;
  /** What was added to the defaults, and why (the defaults are `deny`, `own_folder`). */
  additions: ProfileAddition[];
  /** The launcher the command is, when it is one (`docker` is given nothing: see the README). */
  launcher?: Launcher;
}

export interface ProfileInput {
  platform: NodeJS.Platform;
  home: string;
  dataDir: string;
  /** The server's own folder (under the data folder). */
  ownDir: string;
  /** The per-user runtime folder (XDG_RUNTIME_DIR: session bus, keyring and agent sockets), if any. */
  runtimeDir?: string;
  /** The command as configured, and where it was found (absolute) and really is (links followed). */
  command: { given: string; path?: string; real?: string };
  args: readonly string[];
  cwd?: string;
  roots: readonly string[];
  settings: Pick<ServerSandbox, 'read' | 'denyRead' | 'write' | 'hosts'>;
  /** The scripts among the arguments that exist, resolved (the caller looks): for `node` and `python`. */
  scripts?: readonly { path: string; packageRoot?: string }[];
}

/** Registry hosts: what a first `npx -y pkg` or `uvx pkg` downloads from. */
export const NPM_REGISTRY_HOSTS = ['registry.npmjs.org:443'];
export const PYPI_HOSTS = ['pypi.org:443', 'files.pythonhosted.org:443'];

function pathApi(platform: NodeJS.Platform): typeof posix {
  return platform === 'win32' ? win32 : posix;
}

/** The launcher a command is, by its file name (`npx`, `npx.cmd`, `python3.12`, `node.exe` …). */
export function launcherOf(command: string, platform: NodeJS.Platform): Launcher | undefined {
  const base = pathApi(platform)
    .basename(command)
    .toLowerCase()
    .replace(/\.(exe|cmd|bat)$/, '');
  if (base === 'npx') return 'npx';
  if (base === 'uvx' || base === 'uv') return 'uvx';
  if (base === 'node' || base === 'nodejs') return 'node';
  if (/^python(\d+(\.\d+)?)?$/.test(base)) return 'python';
  // Its socket is root on this machine: recognised, to say so, and given nothing.
  if (base === 'docker' || base === 'podman') return 'docker';
  return undefined;
}

/**
 * The folder a program is installed in: the folder of its real file, or the prefix above it
 * when that folder is a `bin` (…/node/v24/bin/node → …/node/v24, where its libraries live).
 */
export function installFolderOf(real: string, platform: NodeJS.Platform): string {
  const path = pathApi(platform);
  const folder = path.dirname(real);
  return path.basename(folder).toLowerCase() === 'bin' ? path.dirname(folder) : folder;
}

/** The folders holding people's homes, hidden besides the person's own. */
function homesRoot(platform: NodeJS.Platform): string[] {
  if (platform === 'darwin') return ['/Users'];
  if (platform === 'linux') return ['/home'];
  return [];
}

function uvFolders(platform: NodeJS.Platform, home: string): string[] {
  const path = pathApi(platform);
  if (platform === 'darwin')
    return [path.join(home, 'Library', 'Caches', 'uv'), path.join(home, '.local', 'share', 'uv')];
  if (platform === 'win32')
    return [path.join(home, 'AppData', 'Local', 'uv'), path.join(home, 'AppData', 'Roaming', 'uv')];
  return [path.join(home, '.cache', 'uv'), path.join(home, '.local', 'share', 'uv')];
}

function isUnder(path: string, folder: string, platform: NodeJS.Platform): boolean {
  const rel = pathApi(platform).relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !pathApi(platform).isAbsolute(rel));
}

export function buildServerProfile(input: ProfileInput): ServerSandboxProfile {
  const { platform, home } = input;
  const path = pathApi(platform);
  const additions: ProfileAddition[] = [];
  const add = (addition: ProfileAddition): void => {
    const kept: ProfileAddition = { reason: addition.reason };
    if (addition.launcher) kept.launcher = addition.launcher;
    for (const key of ['read', 'write', 'hosts'] as const) {
      const list = [...new Set(addition[key] ?? [])];
      if (list.length) kept[key] = list;
    }
    if (kept.read || kept.write || kept.hosts) additions.push(kept);
  };

  const deny = [
    ...new Set([
      home,
      ...homesRoot(platform),
      input.dataDir,
      ...(input.runtimeDir ? [input.runtimeDir] : []),
      ...input.settings.denyRead,
    ]),
  ];

  add({ reason: 'own_folder', read: [input.ownDir], write: [input.ownDir] });
  add({ reason: 'roots', read: [...input.roots], write: [...input.roots] });

  // The command's own folder: only where it is hidden (a program under /usr is readable anyway).
  const hidden = (p: string): boolean => deny.some((d) => isUnder(p, d, platform));
  // Never a denied folder itself or one above it (~/bin/tool's prefix is the home folder): then
  // the file's own folder, or the file alone.
  const opensDenied = (p: string): boolean => deny.some((d) => isUnder(d, p, platform));
  const narrowest = (folder: string, file: string): string =>
    !opensDenied(folder) ? folder : !opensDenied(path.dirname(file)) ? path.dirname(file) : file;
  const commandFolders = [
    ...(input.command.path ? [narrowest(path.dirname(input.command.path), input.command.path)] : []),
    ...(input.command.real ? [narrowest(installFolderOf(input.command.real, platform), input.command.real)] : []),
  ].filter(hidden);
  add({ reason: 'command_install', read: commandFolders });
  if (input.cwd && hidden(input.cwd) && !opensDenied(input.cwd)) add({ reason: 'working_folder', read: [input.cwd] });

  // By the name it was given (`npx` is a link to npm's npx-cli.js), else by the file it is.
  const kind =
    launcherOf(input.command.given, platform) ??
    (input.command.real ? launcherOf(input.command.real, platform) : undefined);
  if (kind === 'node' || kind === 'python') {
    const scripts = (input.scripts ?? [])
      .map((s) => narrowest(s.packageRoot ?? path.dirname(s.path), s.path))
      .filter(hidden);
    add({ reason: 'launcher_script', launcher: kind, read: scripts });
  }
  if (kind === 'npx') {
    const cache = path.join(home, '.npm');
    add({ reason: 'launcher_npm_cache', launcher: 'npx', read: [cache], write: [cache] });
    add({ reason: 'launcher_npm_registry', launcher: 'npx', hosts: NPM_REGISTRY_HOSTS });
  }
  if (kind === 'uvx') {
    const folders = uvFolders(platform, home);
    add({ reason: 'launcher_uv_cache', launcher: 'uvx', read: folders, write: folders });
    add({ reason: 'launcher_pypi', launcher: 'uvx', hosts: PYPI_HOSTS });
  }
  add({
    reason: 'listed',
    read: [...input.settings.read],
    write: [...input.settings.write],
    hosts: [...input.settings.hosts],
  });

  const all = (key: 'read' | 'write' | 'hosts'): string[] => [...new Set(additions.flatMap((a) => a[key] ?? []))];
  // A write implies a read: the library binds a writable folder readable too.
  const allow = [...new Set([...all('read'), ...all('write')])];
  return {
    read: { deny, allow },
    write: all('write'),
    hosts: all('hosts'),
    env: {
      TMPDIR: path.join(input.ownDir, 'tmp'),
      // Node's fetch and http ignore HTTP(S)_PROXY unless told (Node 22.21+/24): without it a Node
      // server could reach none of its listed hosts, the proxy being the sandbox's only way out.
      ...(kind === 'node' || kind === 'npx' ? { NODE_USE_ENV_PROXY: '1' } : {}),
    },
    additions,
    ...(kind ? { launcher: kind } : {}),
  };
}
