/**
 * Stdio servers in sandbox-runtime (issue 29): the one process-wide session of the library, the
 * platform check (what is missing, as a code), and the wrap of one server's argv.
 *
 * sandbox-runtime keeps one session per process (`SandboxManager`): its proxies and its global
 * configuration, which here allows no host and no write — every server's rules come with its own
 * wrap (runtimeConfig.ts), and its hosts are registered under the wrap's random id. The library
 * runs the command as a string through an inner shell: the argv is quoted word by word
 * (shellQuote.ts), and `/bin/sh` is that shell (bash would read the person's ~/.bashrc on the
 * host when its stdin is a socket, as Node's pipes are).
 *
 * Violations the library records (connections its proxy refused; on macOS also the Seatbelt log)
 * are handed to `onViolation` with the server they came from. On Linux a denied read or write is
 * an error in the server (the file is not there, or the file system is read-only), not a record:
 * the library's Linux monitor knows only its global write list, so it is not started.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, sep } from 'node:path';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import type { SandboxReason } from '../../shared/errors.js';
import type { ServerSandbox, StdioServerConfig } from '../../shared/serverConfig.js';
import { resolveCommand, scriptsAmong } from './commandPath.js';
import { deniedReadIn } from './deniedAccess.js';
import type { EgressAsks } from './egressAsk.js';
import type { EgressGate, GateDecision } from './egressGate.js';
import { startEgressGate } from './egressGate.js';
import { runtimeConfigOf } from './runtimeConfig.js';
import type { ServerSandboxProfile } from './serverProfile.js';
import { buildServerProfile } from './serverProfile.js';
import { execCommandLine, ShellQuoteError } from './shellQuote.js';

/** The inner (and outer) shell of the library's wrap; see the header. */
export const SHELL = '/bin/sh';
const PROBE_TIMEOUT_MS = 15_000;

export class SandboxUnavailableError extends Error {
  constructor(
    readonly reason: SandboxReason,
    readonly detail: string,
  ) {
    super(`The sandbox cannot run (${reason}): ${detail}`);
    this.name = 'SandboxUnavailableError';
  }
}

/** The command is nowhere on the server's PATH (or not executable): as `spawn`'s ENOENT, before any wrap. */
export class SandboxCommandNotFoundError extends Error {
  constructor(readonly command: string) {
    super(`The command "${command}" was not found.`);
    this.name = 'SandboxCommandNotFoundError';
  }
}

export type PlatformCheck = { ok: true; programs: Programs } | { ok: false; reason: SandboxReason; detail: string };

/** The absolute paths of the programs the library runs (never looked up on a server's PATH). */
interface Programs {
  bwrap?: string;
  socat?: string;
  rg?: string;
}

/** Fixed system folders first: a PATH entry someone else can write to must not pick the sandbox. */
const SYSTEM_BIN = ['/usr/bin', '/bin', '/usr/local/bin', '/opt/homebrew/bin'];

function findProgram(name: string, pathVariable: string): string | undefined {
  for (const folder of [...SYSTEM_BIN, ...pathVariable.split(delimiter)]) {
    if (!folder.startsWith('/')) continue;
    const file = join(folder, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * What this machine lacks to run sandboxed servers, as a code. Linux needs bubblewrap, socat and
 * ripgrep; macOS ripgrep (Seatbelt is built in); Windows is refused (see runtimeConfig.ts).
 */
export function checkPrograms(
  platform: NodeJS.Platform = process.platform,
  pathVariable: string = process.env.PATH ?? '',
  find: (name: string, path: string) => string | undefined = findProgram,
): PlatformCheck {
  if (platform === 'win32')
    return {
      ok: false,
      reason: 'windows_per_server_grants',
      detail: 'per-server sandboxes are not supported on Windows yet',
    };
  if (platform !== 'linux' && platform !== 'darwin')
    return { ok: false, reason: 'platform_unsupported', detail: `no sandbox for ${platform}` };
  const rg = find('rg', pathVariable);
  if (platform === 'darwin') {
    return rg
      ? { ok: true, programs: { rg } }
      : { ok: false, reason: 'ripgrep_missing', detail: 'install ripgrep (rg)' };
  }
  const bwrap = find('bwrap', pathVariable);
  if (!bwrap) return { ok: false, reason: 'bubblewrap_missing', detail: 'install the "bubblewrap" package' };
  const socat = find('socat', pathVariable);
  if (!socat) return { ok: false, reason: 'socat_missing', detail: 'install the "socat" package' };
  if (!rg) return { ok: false, reason: 'ripgrep_missing', detail: 'install the "ripgrep" package' };
  return { ok: true, programs: { bwrap, socat, rg } };
}

// ── the process-wide library session ─────────────────────────────────────────────────────────
/** Who is told of the violations of each live wrap, by its id. */
const watchers = new Map<string, (line: string) => void>();
const delivered = new WeakSet<object>();
let session: Promise<void> | undefined;
/** The egress gate (egressGate.ts), in the library's SOCKS slot, while the session runs. */
let gate: EgressGate | undefined;
/** Who decides the attempts of each live wrap that asks the person, by its id. */
const deciders = new Map<string, (host: string, port: number) => Promise<GateDecision>>();

/** The gate's decision for one attempt; a refusal is recorded as the wrap's violation, as the library records its own. */
async function decideAtGate(commandId: string | undefined, host: string, port: number): Promise<GateDecision> {
  const decide = commandId === undefined ? undefined : deciders.get(commandId);
  const decision: GateDecision = decide
    ? await decide(host, port)
    : { allow: false, reason: 'no sandboxed server named' };
  if (!decision.allow && commandId !== undefined) {
    const where = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    watchers.get(commandId)?.(`deny network-outbound ${where} (${decision.reason})`);
  }
  return decision;
}

/**
 * The variables a server's HTTP clients read for their proxy, pointed at the gate (same user
 * name and token, the gate's port as the sandbox sees it: on Linux the library's SOCKS bridge,
 * 1080; on macOS the gate's own port). Constant shell text: no server's data is in it.
 */
const GATED_PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'all_proxy'];
const LINUX_SOCKS_BRIDGE_PORT = 1080;
export function gatedProxyLine(platform: NodeJS.Platform, gatePort: number): string {
  const port = platform === 'linux' ? LINUX_SOCKS_BRIDGE_PORT : gatePort;
  return GATED_PROXY_VARIABLES.map((name) => `[ -z "\${${name}-}" ] || export ${name}="\${${name}%:*}:${port}"; `).join(
    '',
  );
}

/**
 * In a packaged app the library's files are read from the asar archive, but its helper programs
 * cannot be run from there: electron-builder.yml unpacks them beside it (`app.asar.unpacked`).
 */
function unpackedHelpers(): Partial<SandboxRuntimeConfig> {
  const arch = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : undefined;
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime/package.json'));
  } catch {
    return {};
  }
  const marker = `${sep}app.asar${sep}`;
  if (!packageDir.includes(marker) || !arch) return {};
  const vendor = join(packageDir.replace(marker, `${sep}app.asar.unpacked${sep}`), 'vendor');
  return {
    seccomp: { applyPath: join(vendor, 'seccomp', arch, 'apply-seccomp') },
    javaAgentJarPath: join(vendor, 'java-proxy-agent', 'srt-proxy-agent.jar'),
  };
}

function baseConfig(programs: Programs, gatePort: number): SandboxRuntimeConfig {
  return {
    ...unpackedHelpers(),
    // No host and no file write for anyone: each wrap brings its server's own. The SOCKS slot is
    // the egress gate's (egressGate.ts); the library's own proxy serves HTTP.
    network: { allowedDomains: [], deniedDomains: [], socksProxyPort: gatePort },
    filesystem: { denyRead: [], allowRead: [], allowWrite: [], denyWrite: [] },
    ...(programs.bwrap ? { bwrapPath: programs.bwrap } : {}),
    ...(programs.socat ? { socatPath: programs.socat } : {}),
    ...(programs.rg ? { ripgrep: { command: programs.rg } } : {}),
  };
}

async function startSession(): Promise<void> {
  const check = checkPrograms();
  if (!check.ok) throw new SandboxUnavailableError(check.reason, check.detail);
  const deps = await SandboxManager.checkDependenciesAsync({ command: check.programs.rg ?? 'rg' });
  if (deps.errors.length) throw new SandboxUnavailableError('dependency_failed', deps.errors.join('; '));
  gate = await startEgressGate({ upstreamPort: () => SandboxManager.getProxyPort(), decide: decideAtGate });
  try {
    // The log monitor reads macOS's Seatbelt log; on Linux see the header.
    await SandboxManager.initialize(baseConfig(check.programs, gate.port), undefined, process.platform === 'darwin');
  } catch (error) {
    await closeGate();
    throw new SandboxUnavailableError('sandbox_failed', error instanceof Error ? error.message : String(error));
  }
  SandboxManager.getSandboxViolationStore().subscribe(() => {
    for (const [commandId, tell] of watchers) {
      for (const violation of SandboxManager.getSandboxViolationStore().getViolationsForCommand(commandId)) {
        if (delivered.has(violation)) continue;
        delivered.add(violation);
        tell(violation.line);
      }
    }
  });
  // A sandboxed command that must run: where user namespaces are refused, this says so now.
  const { argv } = await SandboxManager.wrapWithSandboxArgv('exit 0', SHELL, {
    filesystem: { denyRead: [], allowRead: [], allowWrite: [], denyWrite: [] },
  });
  const probe = spawnSync(argv[0] ?? SHELL, argv.slice(1), { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' });
  SandboxManager.cleanupAfterCommand();
  if (probe.status !== 0) {
    const firstLine = (probe.stderr ?? '').trim().split('\n')[0] || probe.error?.message || `exit ${probe.status}`;
    throw new SandboxUnavailableError('sandbox_failed', firstLine);
  }
}

async function closeGate(): Promise<void> {
  const running = gate;
  gate = undefined;
  await running?.close();
}

/** Hands `tell` each violation the library records under `commandId`, until the returned function is called. */
export function watchViolations(commandId: string, tell: (line: string) => void): () => void {
  watchers.set(commandId, tell);
  return () => void watchers.delete(commandId);
}

/** The library's session, started once per process; a failed start is tried again next time. */
export function sandboxSession(): Promise<void> {
  session ??= startSession().catch((error: unknown) => {
    session = undefined;
    throw error;
  });
  return session;
}

/** Ends the library's session (its proxies): for a process that is done with servers (benchmarks, the app's exit). */
export async function endSandboxSession(): Promise<void> {
  const running = session;
  session = undefined;
  if (!running) return;
  await running.catch(() => undefined);
  await SandboxManager.reset();
  await closeGate();
}

// ── one server ───────────────────────────────────────────────────────────────────────────────
export interface SandboxedServer {
  id: string;
  command: string;
  args: readonly string[];
  cwd?: string | undefined;
  roots: readonly string[];
  sandbox: Pick<ServerSandbox, 'read' | 'denyRead' | 'write' | 'hosts'>;
}

/** The parts of a stdio server's config its sandbox is made from — one reading for the spawn and the profile shown. */
export function sandboxedServerOf(config: StdioServerConfig): SandboxedServer {
  return {
    id: config.id,
    command: config.command,
    args: config.args,
    cwd: config.cwd,
    roots: config.roots ?? [],
    sandbox: config.sandbox ?? { read: [], denyRead: [], write: [], hosts: [] },
  };
}

/** What to spawn in place of the server's command (`shell: false`), and what to do when it ends. */
export interface SandboxedSpawn {
  command: string;
  args: string[];
  profile: ServerSandboxProfile;
  /** The wrap's id: the library's violations and the host list are filed under it. */
  commandId: string;
  /** Call when the process has exited or never started (unregisters its hosts, frees the wrap). Idempotent. */
  release(): void;
  /** The narrowest folder to allow reading that the server's stderr names as hidden, if any (deniedAccess.ts). */
  deniedRead(stderr: readonly string[]): string | undefined;
}

export interface ServerSandboxOptions {
  /** The app's data folder: hidden from servers; each server's own folder is under it. */
  dataDir: string;
  /** The person's home folder (default: the OS's). */
  home?: string;
  /** The per-user runtime folder to hide (default: XDG_RUNTIME_DIR). */
  runtimeDir?: string;
  /** Told of each violation the library records for a server's process. */
  onViolation?: (serverId: string, line: string) => void;
  /** The platform servers are sandboxed for (default: this one); another is refused before anything runs. */
  platform?: NodeJS.Platform;
  /** The egress ask (egressAsk.ts): told of each wrap, it decides the wrap's attempts at the gate, asking the person. */
  egress?: Pick<EgressAsks, 'attach' | 'detach' | 'decide'>;
}

/** Where a server's own folder is: under the data folder, by its id. */
export function ownFolderOf(dataDir: string, serverId: string): string {
  return join(dataDir, 'sandbox', serverId);
}

export class ServerSandboxes {
  constructor(private readonly options: ServerSandboxOptions) {}

  /** The profile a server gets (for the GUI and the tests): no library call. */
  profileOf(server: SandboxedServer, env: Readonly<Record<string, string>>): ServerSandboxProfile {
    const cwd = server.cwd ?? process.cwd();
    const runtimeDir = this.options.runtimeDir ?? process.env.XDG_RUNTIME_DIR;
    return buildServerProfile({
      platform: this.options.platform ?? process.platform,
      home: this.options.home ?? homedir(),
      dataDir: this.options.dataDir,
      ownDir: ownFolderOf(this.options.dataDir, server.id),
      ...(runtimeDir ? { runtimeDir } : {}),
      command: resolveCommand(server.command, env.PATH, cwd),
      args: server.args,
      ...(server.cwd ? { cwd: server.cwd } : {}),
      roots: server.roots,
      settings: server.sandbox,
      scripts: scriptsAmong(server.args, cwd),
    });
  }

  /** Wraps a server's argv; throws `SandboxUnavailableError` rather than run it unconfined. */
  async wrap(server: SandboxedServer, env: Readonly<Record<string, string>>): Promise<SandboxedSpawn> {
    const platform = this.options.platform ?? process.platform;
    // What this platform lacks is said before the library starts (and never by running unconfined).
    const check = checkPrograms(platform);
    if (!check.ok) throw new SandboxUnavailableError(check.reason, check.detail);
    if (platform !== process.platform)
      throw new SandboxUnavailableError(
        'platform_unsupported',
        `servers are sandboxed for ${platform}, but this machine runs ${process.platform}`,
      );
    await sandboxSession();
    const cwd = server.cwd ?? process.cwd();
    const profile = this.profileOf(server, env);
    const config = runtimeConfigOf(profile, platform);
    if (!config.ok) throw new SandboxUnavailableError(config.code, `no sandbox for ${platform}`);
    const own = ownFolderOf(this.options.dataDir, server.id);
    mkdirSync(join(own, 'tmp'), { recursive: true, mode: 0o700 });

    // The program as found on the host: the inner shell would look a name up differently, or not
    // at all where its folder is hidden.
    const program = resolveCommand(server.command, env.PATH, cwd).path;
    if (!program) throw new SandboxCommandNotFoundError(server.command);
    const egress = this.options.egress;
    let line: string;
    try {
      // With an egress ask, the server's HTTP clients go through the gate, where an attempt waits for the person.
      line =
        (egress && gate ? gatedProxyLine(platform, gate.port) : '') +
        execCommandLine([program, ...server.args], profile.env);
    } catch (error) {
      if (error instanceof ShellQuoteError) throw new SandboxUnavailableError('argument_unquotable', error.code);
      throw error;
    }
    // At least 128 random bits: the id is what binds a connection to this server's host list.
    const commandId = randomBytes(16).toString('base64url');
    const { argv } = await SandboxManager.wrapWithSandboxArgv(line, SHELL, config.customConfig, undefined, cwd, {
      commandId,
      commandText: `mcp-server ${server.id}`,
    });
    const { onViolation } = this.options;
    const unwatch = onViolation
      ? watchViolations(commandId, (violation) => onViolation(server.id, violation))
      : () => undefined;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      egress?.detach(commandId);
      deciders.delete(commandId);
      unwatch();
      SandboxManager.unregisterCommandNetworkLists(commandId);
      SandboxManager.cleanupAfterCommand();
    };
    try {
      if (config.hosts.length) SandboxManager.registerCommandNetworkLists(commandId, { allowedDomains: config.hosts });
    } catch (error) {
      release();
      throw new SandboxUnavailableError('host_invalid', error instanceof Error ? error.message : String(error));
    }
    if (egress) {
      egress.attach(server.id, commandId, config.hosts);
      deciders.set(commandId, (host, port) => egress.decide(commandId, host, port));
    }
    const [file, ...args] = argv;
    if (!file) {
      release();
      throw new SandboxUnavailableError('sandbox_failed', 'the library returned no command');
    }
    const runtimeDir = this.options.runtimeDir ?? process.env.XDG_RUNTIME_DIR;
    const never = runtimeDir ? [this.options.dataDir, runtimeDir] : [this.options.dataDir];
    const deniedRead = (stderr: readonly string[]): string | undefined => deniedReadIn(stderr, profile, never);
    return { command: file, args, profile, commandId, release, deniedRead };
  }
}
