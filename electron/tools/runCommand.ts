/**
 * run_command: runs `[executable, ...args]` without a shell, in a folder inside the roots, with
 * an allow-listed environment, a deadline and capped output.
 *
 * Where the machine can run sandbox-runtime (bubblewrap, socat and ripgrep on Linux; macOS), the
 * command runs inside it (sandbox/commandSandbox.ts): the roots and the folders listed in Settings
 * are the only writable folders, the excluded folders (the app's data folder) and the home folder
 * are hidden but for the program's own folder, and the only hosts it reaches are those listed in
 * Settings. What the sandbox refuses is told to the call (`onSandboxViolation`: its trace). Where
 * there is no sandbox, every call asks ("runs unsandboxed"), whatever the permission rules say.
 * The command guard stays in front of both as a tripwire that explains its refusals; the sandbox
 * is the boundary.
 *
 * The process is started by spawnCapped (deadline, abort, process-group kill, capped output).
 */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import type { CommandGuardConfig, CommandGuardResult } from '../security/commandGuard.js';
import { checkCommand, resolveExecutable } from '../security/commandGuard.js';
import type { GuardrailResult } from '../security/guardrails.js';
import { GUARDRAIL_OK, guardrailRefusal } from '../security/guardrails.js';
import type { CommandSandboxSettings, SandboxInfo, WrappedCommand } from '../sandbox/commandSandbox.js';
import {
  CommandHiddenError,
  detectSandbox,
  NO_COMMAND_SANDBOX_SETTINGS,
  wrapCommand,
} from '../sandbox/commandSandbox.js';
import { validatePath } from '../security/pathGuard.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import { parseToolArgs, toInputSchema } from './args.js';
import { DEFAULT_ENV_ALLOW_LIST, buildCommandEnv } from './commandEnv.js';
import { ToolCancelledError } from './errors.js';
import type { CappedOutput } from './outputCapture.js';
import { spawnCapped } from './spawnCapped.js';
import { errorDetailsResult, errorResult, fsErrorResult } from './results.js';
import type { LocalTool, LocalToolRunContext } from './types.js';

export interface RunCommandToolOptions {
  roots: string[];
  commandGuard?: CommandGuardConfig;
  /** Deadline when the call gives none. Default 30 s. */
  timeoutMs?: number;
  /** A call's timeoutMs is lowered to this. Default 120 s. */
  maxTimeoutMs?: number;
  /** Bytes kept of stdout and of stderr, each. Default 64 KiB. */
  maxOutputBytes?: number;
  /** Between SIGTERM and SIGKILL. Default 2 s. */
  killGraceMs?: number;
  /** Names copied from `baseEnv`. Default DEFAULT_ENV_ALLOW_LIST. */
  envAllowList?: readonly string[];
  /** Where allowed variables are read from. Default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Fixed variables added on top. */
  extraEnv?: Record<string, string>;
  /** Folders no command may see, such as the app's data folder: hidden inside the sandbox. */
  excluded?: readonly string[];
  /** The OS sandbox to run in. Default: the one detected on this machine (detectSandbox()). */
  sandbox?: SandboxInfo | Promise<SandboxInfo>;
  /** What each command may read, write and reach beyond the defaults (Settings), read per call. */
  sandboxSettings?: () => CommandSandboxSettings;
}

/** Why a call must be approved by a person whatever the rules say; undefined when it need not. */
export function mustAskReason(sandbox: SandboxInfo): string | undefined {
  if (sandbox.kind === 'none')
    return `run_command runs unsandboxed here (${sandbox.detail}): the command can read and change anything your user can, so every call asks`;
  return undefined;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
const MAX_COMMAND_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
const DEFAULT_KILL_GRACE_MS = 2_000;
const TOOL_NAME = 'run_command';

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

function notFound(exe: string, argv: string[], cwd: string): NormalizedToolResult {
  return errorResult(
    'command_not_found',
    `The program "${exe}" was not found. Check the name, or that it is installed and on PATH.`,
    { argv, cwd },
  );
}

/** The call's wrap in the sandbox, or the error result that says why it cannot run there. */
async function sandboxed(
  kind: 'bwrap' | 'sandbox-exec',
  call: { argv: string[]; cwd: string; env: Record<string, string>; settings: CommandSandboxSettings },
  scope: { roots: readonly string[]; excluded: readonly string[] },
  context: LocalToolRunContext,
): Promise<WrappedCommand | NormalizedToolResult> {
  try {
    return await wrapCommand({
      ...call,
      ...scope,
      ...(context.onSandboxViolation ? { onViolation: context.onSandboxViolation } : {}),
    });
  } catch (error) {
    if (error instanceof CommandHiddenError)
      return errorDetailsResult('command_hidden_by_sandbox', error.message, {
        hiddenBySandbox: { program: error.program, folder: error.folder, sandbox: kind },
      });
    return errorResult(
      'sandbox_failed',
      `The command could not be sandboxed (${error instanceof Error ? error.message : String(error)}); it was not run.`,
      { argv: call.argv, cwd: call.cwd },
    );
  }
}

/** run_command's arguments (its deadlines named in the descriptions). */
function argsSchema(defaultTimeout: number, maxTimeout: number) {
  return z
    .object({
      argv: z
        .array(z.string())
        .min(1)
        .describe(
          'The program and its arguments, e.g. ["git", "status"]. No shell: pipes, globs and $VARS are not interpreted.',
        ),
      cwd: z.string().min(1).optional().describe('Working folder inside the allowed folders (default: the first one).'),
      timeoutMs: z
        .number()
        .int()
        .positive()
        .optional()
        .describe(`Deadline in ms (default ${defaultTimeout}, at most ${maxTimeout}).`),
    })
    .strict();
}

/** The finished process as the call's result: the command, how it ended, its output (each stream capped). */
function commandResult(
  ran: Awaited<ReturnType<typeof spawnCapped>>,
  call: {
    exe: string;
    argv: string[];
    cwd: string;
    timeoutMs: number;
    sandbox: SandboxInfo['kind'];
    hosts: readonly string[];
    spawnFile: string;
    wrapped: boolean;
  },
): NormalizedToolResult {
  const { exe, argv, cwd, timeoutMs, sandbox, spawnFile } = call;
  const { outcome, stdout, stderr, timedOut, cancelled, durationMs, pid } = ran;

  if (cancelled) throw new ToolCancelledError(TOOL_NAME, 'The process was stopped.');
  if (outcome.spawnError) {
    const code = outcome.spawnError.code ?? 'spawn_failed';
    if (code === 'ENOENT' && !call.wrapped) return notFound(exe, argv, cwd);
    const what = call.wrapped ? `The sandbox (${spawnFile})` : `The program "${exe}"`;
    const message = code === 'EACCES' ? `${what} is not executable.` : `${what} could not be started (${code}).`;
    return errorResult('spawn_failed', message, { argv, cwd });
  }

  const structured = {
    argv,
    cwd,
    sandbox,
    // The hosts it could reach: those listed in Settings; null unsandboxed (any).
    hosts: sandbox === 'none' ? null : [...call.hosts],
    pid,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut,
    timeoutMs,
    durationMs,
    stdout: stdout.text(),
    stderr: stderr.text(),
    stdoutBytes: stdout.total,
    stderrBytes: stderr.total,
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
  };
  const status = timedOut
    ? `timed out after ${timeoutMs} ms and was stopped${outcome.signal ? ` (${outcome.signal})` : ''}`
    : outcome.signal
      ? `killed by ${outcome.signal}`
      : `exit code ${outcome.exitCode}`;
  const section = (label: string, out: CappedOutput) =>
    out.total === 0
      ? ''
      : `\n--- ${label} ---\n${out.text()}${out.truncated ? `\n[${label} truncated: ${out.total} bytes, first ${out.capBytes} shown]` : ''}`;
  const text = `$ ${argv.map(quote).join(' ')}\n${status}${section('stdout', stdout)}${section('stderr', stderr)}`;
  return {
    content: [{ type: 'text', text }],
    structuredContent: structured,
    isError: timedOut || outcome.signal !== null || outcome.exitCode !== 0,
  };
}

const DESCRIPTION =
  'Run a program with arguments (no shell) in a folder inside the allowed folders, in an OS sandbox where there is one (only the workspace and the folders the person listed are writable; the home folder is hidden; only the hosts the person listed are reachable). Returns exit code, stdout and stderr (each capped), and whether it timed out.';
const ANNOTATIONS = {
  title: 'Run command',
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** A call as checked before it runs (and by its guardrails). */
interface CheckedCall {
  argv: string[];
  cwd: string;
  timeoutMs: number;
  env: Record<string, string>;
  guard: CommandGuardResult;
  sandbox: SandboxInfo;
}

/** Why a checked call is not started: the command guard refused it, or its folder is missing; a cancelled call throws. */
async function notStartable(
  checked: Pick<CheckedCall, 'cwd' | 'guard'>,
  args: Record<string, unknown>,
  context: LocalToolRunContext,
): Promise<NormalizedToolResult | undefined> {
  const { cwd, guard } = checked;
  if (!guard.ok) {
    return errorResult('command_refused', `The command guard refused this command (${guard.rule}): ${guard.reason}`, {
      rule: guard.rule,
    });
  }
  if (!(await stat(cwd).catch(() => undefined))?.isDirectory()) {
    return errorResult(
      'cwd_missing',
      `The working folder "${String(args.cwd ?? '.')}" does not exist or is not a folder.`,
    );
  }
  if (context.signal?.aborted) throw new ToolCancelledError(TOOL_NAME, 'The command was not started.');
  return undefined;
}

export function createRunCommandTool(options: RunCommandToolOptions): LocalTool {
  const maxTimeout = options.maxTimeoutMs ?? MAX_COMMAND_TIMEOUT_MS;
  const defaultTimeout = Math.min(options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS, maxTimeout);
  const outputCap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const schema = argsSchema(defaultTimeout, maxTimeout);
  const name = TOOL_NAME;
  const env = () =>
    buildCommandEnv(options.baseEnv ?? process.env, options.envAllowList ?? DEFAULT_ENV_ALLOW_LIST, options.extraEnv);
  const roots = [...options.roots];
  const excluded = [...(options.excluded ?? [])];
  const sandbox = (): Promise<SandboxInfo> => Promise.resolve(options.sandbox ?? detectSandbox());

  /** The checks guardrails and run share: arguments, cwd in the roots, the command guard. */
  async function check(args: Record<string, unknown>): Promise<CheckedCall> {
    const parsed = parseToolArgs(name, schema, args);
    const cwd = await validatePath(parsed.cwd ?? '.', roots, { excluded });
    const childEnv = env();
    const guard = await checkCommand(parsed.argv, options.commandGuard, { cwd, path: childEnv.PATH ?? '' });
    return {
      argv: parsed.argv,
      cwd,
      timeoutMs: Math.min(parsed.timeoutMs ?? defaultTimeout, maxTimeout),
      env: childEnv,
      guard,
      sandbox: await sandbox(),
    };
  }

  async function guardrails(args: Record<string, unknown>): Promise<GuardrailResult> {
    try {
      const { guard, sandbox: info } = await check(args);
      if (!guard.ok) return guardrailRefusal(`the command guard refused it (${guard.rule}): ${guard.reason}`);
      const mustAsk = mustAskReason(info);
      return mustAsk ? { ok: true, mustAsk } : GUARDRAIL_OK;
    } catch (error) {
      return guardrailRefusal(error instanceof Error ? error.message : 'the command could not be checked');
    }
  }

  async function run(args: Record<string, unknown>, context: LocalToolRunContext = {}): Promise<NormalizedToolResult> {
    parseToolArgs(name, schema, args); // invalid arguments throw, before anything else
    let checked;
    try {
      checked = await check(args);
    } catch (error) {
      return fsErrorResult(error, String(args.cwd ?? '.'));
    }
    const { argv, cwd, timeoutMs } = checked;
    const refused = await notStartable(checked, args, context);
    if (refused) return refused;

    const [exe = '', ...rest] = argv;
    // Resolved here, outside the sandbox, so a missing program reads the same in both cases.
    if ((await resolveExecutable(exe, { cwd, path: checked.env.PATH ?? '' })) === undefined)
      return notFound(exe, argv, cwd);
    const settings = options.sandboxSettings?.() ?? NO_COMMAND_SANDBOX_SETTINGS;
    let wrapped: WrappedCommand | undefined;
    if (checked.sandbox.kind !== 'none') {
      const got = await sandboxed(
        checked.sandbox.kind,
        { argv, cwd, env: checked.env, settings },
        { roots, excluded },
        context,
      );
      if ('isError' in got) return got;
      wrapped = got;
    }
    const spawnFile = wrapped?.file ?? exe;
    let ran;
    try {
      if (context.signal?.aborted) throw new ToolCancelledError(name, 'The command was not started.');
      ran = await spawnCapped(
        { file: spawnFile, args: wrapped?.args ?? rest, cwd, env: checked.env },
        {
          timeoutMs,
          killGraceMs: grace,
          maxOutputBytes: outputCap,
          ...(context.signal ? { signal: context.signal } : {}),
        },
      );
    } finally {
      wrapped?.release();
    }
    return commandResult(ran, {
      exe,
      argv,
      cwd,
      timeoutMs,
      sandbox: checked.sandbox.kind,
      hosts: settings.hosts,
      spawnFile,
      wrapped: wrapped !== undefined,
    });
  }

  return {
    name,
    description: DESCRIPTION,
    inputSchema: toInputSchema(schema),
    annotations: ANNOTATIONS,
    guardrails,
    run,
  };
}
