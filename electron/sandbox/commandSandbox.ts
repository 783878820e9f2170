/**
 * run_command in sandbox-runtime (issue 29): the same process-wide library session as stdio
 * servers (serverSandbox.ts), one wrap per call with its own file rules and its own network list
 * registered under the wrap's random id, the call's argv quoted word by word (shellQuote.ts).
 *
 * What a command gets: the system readable; the home folder (and every home under /home or
 * /Users), the excluded folders (the app's data folder) and the per-user runtime folder hidden,
 * except the roots, the folders the person listed in Settings and the folder of the program
 * itself when it is installed under the home folder (nvm, pyenv, ~/.local/bin). Writable: the
 * roots, the listed folders and a scratch folder of the call's own (its TMPDIR, removed after).
 * Hosts: only those listed in Settings. Launchers get nothing more here (unlike servers): a
 * `node` or `npx` call reads and reaches only what any command does.
 *
 * A program found on the host inside a folder the sandbox hides (the data folder …) is refused
 * before anything runs, naming the folder, rather than failing inside as "not found".
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import type { SandboxReason } from '../../shared/errors.js';
import { resolveCommand } from './commandPath.js';
import { runtimeConfigOf } from './runtimeConfig.js';
import type { ServerSandboxProfile } from './serverProfile.js';
import { buildServerProfile } from './serverProfile.js';
import type { PlatformCheck } from './serverSandbox.js';
import { SHELL, SandboxUnavailableError, checkPrograms, sandboxSession, watchViolations } from './serverSandbox.js';
import { execCommandLine, ShellQuoteError } from './shellQuote.js';

/** What confines local commands here, as app.info shows it. */
export interface SandboxInfo {
  kind: 'bwrap' | 'sandbox-exec' | 'none';
  /** For `none`: why, as a code. */
  reason?: SandboxReason;
  /** For people: what confines commands, or why nothing does. */
  detail: string;
}

/** What the person lets every command touch beyond the defaults (Settings → run_command). */
export interface CommandSandboxSettings {
  read: readonly string[];
  write: readonly string[];
  /** `host[:port]` as sandbox-runtime's allow lists spell it. */
  hosts: readonly string[];
}

export const NO_COMMAND_SANDBOX_SETTINGS: CommandSandboxSettings = { read: [], write: [], hosts: [] };

const CONFINED_DETAIL =
  'only the workspace folders and those listed in Settings are writable; the data and home folders are hidden; no network but the hosts listed in Settings.';

const MISSING_DETAIL: Partial<Record<SandboxReason, string>> = {
  bubblewrap_missing:
    'bubblewrap (bwrap) is not installed, so commands cannot be confined. Install the "bubblewrap" package.',
  socat_missing: 'socat is not installed, so commands cannot be confined. Install the "socat" package.',
  ripgrep_missing: 'ripgrep (rg) is not installed, so commands cannot be confined. Install the "ripgrep" package.',
};

/** What the platform check and the session's start said, as SandboxInfo (pure: unit-tested per platform). */
export function commandSandboxInfo(
  check: PlatformCheck | { ok: true },
  platform: NodeJS.Platform,
  started?: SandboxUnavailableError,
): SandboxInfo {
  const failed = !check.ok ? { reason: check.reason, detail: check.detail } : started;
  if (failed) {
    const detail =
      MISSING_DETAIL[failed.reason] ??
      `The sandbox cannot run here (${failed.detail}), so commands cannot be confined.`;
    return { kind: 'none', reason: failed.reason, detail };
  }
  return platform === 'darwin'
    ? { kind: 'sandbox-exec', detail: `Commands run in sandbox-runtime (sandbox-exec): ${CONFINED_DETAIL}` }
    : { kind: 'bwrap', detail: `Commands run in sandbox-runtime (bubblewrap): ${CONFINED_DETAIL}` };
}

/** Checks the programs and starts the library's session: the sandbox commands get here. */
export async function probeSandbox(): Promise<SandboxInfo> {
  const check = checkPrograms();
  if (!check.ok) return commandSandboxInfo(check, process.platform);
  try {
    await sandboxSession();
    return commandSandboxInfo(check, process.platform);
  } catch (error) {
    const failure =
      error instanceof SandboxUnavailableError
        ? error
        : new SandboxUnavailableError('sandbox_failed', error instanceof Error ? error.message : String(error));
    return commandSandboxInfo(check, process.platform, failure);
  }
}

let detected: Promise<SandboxInfo> | undefined;

/** The sandbox of this machine, probed on first use and remembered. */
export function detectSandbox(): Promise<SandboxInfo> {
  detected ??= probeSandbox();
  return detected;
}

/** The program exists on the host, but the sandbox hides the folder it is in. */
export class CommandHiddenError extends Error {
  constructor(
    readonly program: string,
    readonly folder: string,
  ) {
    super(`The program "${program}" is in "${folder}", which run_command's sandbox hides; it was not run.`);
    this.name = 'CommandHiddenError';
  }
}

export interface CommandWrapRequest {
  argv: readonly string[];
  cwd: string;
  /** The command's environment (its PATH finds the program; its HOME is the home folder hidden). */
  env: Readonly<Record<string, string>>;
  roots: readonly string[];
  /** Folders no command may see (the app's data folder). */
  excluded: readonly string[];
  settings: CommandSandboxSettings;
  /** Told each violation the library records for this call's process. */
  onViolation?: (line: string) => void;
  /** Shown as the violation's command (e.g. the call's id). */
  label?: string;
}

export interface WrappedCommand {
  file: string;
  args: string[];
  /** The wrap's id: the call's violations and hosts are filed under it. */
  commandId: string;
  profile: ServerSandboxProfile;
  /** Call when the process has ended or never started: unregisters, removes the scratch folder. Idempotent. */
  release(): void;
}

function isUnder(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The folder of `deny` that hides `file`, unless an `allow` entry opens it again. */
function hidingFolder(file: string, profile: Pick<ServerSandboxProfile, 'read'>): string | undefined {
  if (profile.read.allow.some((a) => isUnder(file, a))) return undefined;
  return profile.read.deny.find((d) => isUnder(file, d));
}

/**
 * The profile of one command: the server profile's defaults with the call's scratch folder as
 * its own, without launcher additions, and with no program folder opened inside a folder the
 * person never lets commands see (excluded, runtime).
 */
function commandProfile(input: {
  platform: NodeJS.Platform;
  home: string;
  scratch: string;
  runtimeDir?: string;
  command: { given: string; path?: string; real?: string };
  roots: readonly string[];
  excluded: readonly string[];
  settings: CommandSandboxSettings;
}): ServerSandboxProfile {
  // The server profile hides one data folder; the other excluded folders go with the denied ones.
  const [dataDir = input.home, ...moreExcluded] = input.excluded;
  const closed = [...input.excluded, ...(input.runtimeDir ? [input.runtimeDir] : [])];
  const built = buildServerProfile({
    platform: input.platform,
    home: input.home,
    dataDir,
    ownDir: input.scratch,
    ...(input.runtimeDir ? { runtimeDir: input.runtimeDir } : {}),
    command: input.command,
    args: [],
    roots: input.roots,
    settings: {
      read: [...input.settings.read],
      denyRead: moreExcluded,
      write: [...input.settings.write],
      hosts: [...input.settings.hosts],
    },
  });
  const additions = built.additions
    .filter((a) => a.launcher === undefined)
    .map((a) =>
      a.reason === 'command_install' && a.read
        ? { ...a, read: a.read.filter((p) => !closed.some((c) => isUnder(p, c))) }
        : a,
    );
  const all = (key: 'read' | 'write' | 'hosts'): string[] => [...new Set(additions.flatMap((a) => a[key] ?? []))];
  return {
    read: { deny: built.read.deny, allow: [...new Set([...all('read'), ...all('write')])] },
    write: all('write'),
    hosts: all('hosts'),
    env: { TMPDIR: join(input.scratch, 'tmp') },
    additions,
  };
}

/** Wraps one command; throws CommandHiddenError, or SandboxUnavailableError rather than run it unconfined. */
export async function wrapCommand(request: CommandWrapRequest): Promise<WrappedCommand> {
  await sandboxSession();
  const home = request.env.HOME && isAbsolute(request.env.HOME) ? request.env.HOME : homedir();
  // The per-user runtime folders (session bus, keyring and agent sockets).
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  const excluded = [...request.excluded, ...(existsSync('/run/user') ? ['/run/user'] : [])].map(real);
  const command = resolveCommand(request.argv[0] ?? '', request.env.PATH, request.cwd);
  const scratch = mkdtempSync(join(tmpdir(), 'mh-command-'));
  const removeScratch = (): void => rmSync(scratch, { recursive: true, force: true });
  let profile: ServerSandboxProfile;
  let line: string;
  try {
    mkdirSync(join(scratch, 'tmp'), { mode: 0o700 });
    profile = commandProfile({
      platform: process.platform,
      home: real(home),
      scratch: real(scratch),
      ...(runtimeDir ? { runtimeDir } : {}),
      command,
      roots: request.roots,
      excluded,
      settings: request.settings,
    });
    const program = command.path ?? request.argv[0] ?? '';
    for (const file of [command.path, command.real]) {
      const folder = file ? hidingFolder(file, profile) : undefined;
      if (folder) throw new CommandHiddenError(program, folder);
    }
    line = execCommandLine([program, ...request.argv.slice(1)], profile.env);
  } catch (error) {
    removeScratch();
    if (error instanceof ShellQuoteError) throw new SandboxUnavailableError('argument_unquotable', error.code);
    throw error;
  }
  const config = runtimeConfigOf(profile, process.platform);
  if (!config.ok) {
    removeScratch();
    throw new SandboxUnavailableError(config.code, `no sandbox for ${process.platform}`);
  }
  // At least 128 random bits: the id is what binds a connection to this call's host list.
  const commandId = randomBytes(16).toString('base64url');
  let argv: string[];
  try {
    ({ argv } = await SandboxManager.wrapWithSandboxArgv(line, SHELL, config.customConfig, undefined, request.cwd, {
      commandId,
      commandText: request.label ?? 'run_command',
    }));
  } catch (error) {
    removeScratch();
    throw new SandboxUnavailableError('sandbox_failed', error instanceof Error ? error.message : String(error));
  }
  const unwatch = request.onViolation ? watchViolations(commandId, request.onViolation) : () => undefined;
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    unwatch();
    SandboxManager.unregisterCommandNetworkLists(commandId);
    SandboxManager.cleanupAfterCommand();
    removeScratch();
  };
  try {
    if (config.hosts.length) SandboxManager.registerCommandNetworkLists(commandId, { allowedDomains: config.hosts });
  } catch (error) {
    release();
    throw new SandboxUnavailableError('host_invalid', error instanceof Error ? error.message : String(error));
  }
  const [file, ...args] = argv;
  if (!file) {
    release();
    throw new SandboxUnavailableError('sandbox_failed', 'the library returned no command');
  }
  return { file, args, commandId, profile, release };
}
