/**
 * run_command: runs `[executable, ...args]` without a shell, in a folder inside the roots, with
 * an allow-listed environment, a deadline and capped output.
 *
 * Where the OS has a sandbox (bubblewrap on Linux, sandbox-exec on macOS; electron/sandbox/),
 * the command runs inside it: the roots are the only writable folders, the excluded folders
 * (the app's data folder) and the home folder are hidden, and there is no network unless the
 * call sets `network: true` — which always asks a person. Where there is none, every call asks
 * ("runs unsandboxed"), whatever the permission rules say. The command guard stays in front of
 * both as a tripwire that explains its refusals; the sandbox is the boundary.
 *
 * The process is started by spawnCapped (deadline, abort, process-group kill, capped output).
 */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import type { CommandGuardConfig, CommandGuardResult } from '../security/commandGuard.js';
import { checkCommand, resolveExecutable } from '../security/commandGuard.js';
import type { GuardrailResult } from '../security/guardrails.js';
import { GUARDRAIL_OK, guardrailRefusal } from '../security/guardrails.js';
import { detectSandbox } from '../sandbox/detect.js';
import { buildSandboxPolicy, sandboxedCommand } from '../sandbox/policy.js';
import type { SandboxInfo } from '../sandbox/types.js';
import { validatePath } from '../security/pathGuard.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import { parseToolArgs, toInputSchema } from './args.js';
import { DEFAULT_ENV_ALLOW_LIST, buildCommandEnv } from './commandEnv.js';
import { ToolCancelledError } from './errors.js';
import type { CappedOutput } from './outputCapture.js';
import { spawnCapped } from './spawnCapped.js';
import { errorResult, fsErrorResult } from './results.js';
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
}

/** Why a call must be approved by a person whatever the rules say; undefined when it need not. */
export function mustAskReason(sandbox: SandboxInfo, network: boolean): string | undefined {
  if (sandbox.kind === 'none')
    return `run_command runs unsandboxed here (${sandbox.detail}): the command can read and change anything your user can, so every call asks`;
  if (network) return 'This command asks for network access (network: true), so it asks every time';
  return undefined;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
const MAX_COMMAND_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
const DEFAULT_KILL_GRACE_MS = 2_000;

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

export function createRunCommandTool(options: RunCommandToolOptions): LocalTool {
  const maxTimeout = options.maxTimeoutMs ?? MAX_COMMAND_TIMEOUT_MS;
  const defaultTimeout = Math.min(options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS, maxTimeout);
  const outputCap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const schema = z
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
      network: z
        .boolean()
        .optional()
        .describe(
          'Let the command use the network (default false: sandboxed commands have none). Always asks for approval.',
        ),
    })
    .strict();
  const name = 'run_command';
  const env = () =>
    buildCommandEnv(options.baseEnv ?? process.env, options.envAllowList ?? DEFAULT_ENV_ALLOW_LIST, options.extraEnv);
  const roots = [...options.roots];
  const excluded = [...(options.excluded ?? [])];
  const sandbox = (): Promise<SandboxInfo> => Promise.resolve(options.sandbox ?? detectSandbox());

  /** The checks guardrails and run share: arguments, cwd in the roots, the command guard. */
  async function check(args: Record<string, unknown>): Promise<{
    argv: string[];
    cwd: string;
    timeoutMs: number;
    network: boolean;
    env: Record<string, string>;
    guard: CommandGuardResult;
    sandbox: SandboxInfo;
  }> {
    const parsed = parseToolArgs(name, schema, args);
    const cwd = await validatePath(parsed.cwd ?? '.', roots, { excluded });
    const childEnv = env();
    const guard = await checkCommand(parsed.argv, options.commandGuard, { cwd, path: childEnv.PATH ?? '' });
    const network = parsed.network === true;
    return {
      argv: parsed.argv,
      cwd,
      timeoutMs: Math.min(parsed.timeoutMs ?? defaultTimeout, maxTimeout),
      network,
      env: childEnv,
      guard,
      sandbox: await sandbox(),
    };
  }

  async function guardrails(args: Record<string, unknown>): Promise<GuardrailResult> {
    try {
      const { guard, sandbox: info, network } = await check(args);
      if (!guard.ok) return guardrailRefusal(`the command guard refused it (${guard.rule}): ${guard.reason}`);
      const mustAsk = mustAskReason(info, network);
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
    const { argv, cwd, timeoutMs, guard, network } = checked;
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
    if (context.signal?.aborted) throw new ToolCancelledError(name, 'The command was not started.');

    const [exe = '', ...rest] = argv;
    // Resolved here, outside the sandbox, so a missing program reads the same in both cases.
    if ((await resolveExecutable(exe, { cwd, path: checked.env.PATH ?? '' })) === undefined)
      return notFound(exe, argv, cwd);
    let spawnFile = exe;
    let spawnArgs = rest;
    let spawnEnv = checked.env;
    try {
      const wrapped = sandboxedCommand(
        checked.sandbox,
        await buildSandboxPolicy({ roots, excluded, network, cwd }),
        argv,
      );
      if (wrapped) {
        spawnFile = wrapped.file;
        spawnArgs = wrapped.args;
        spawnEnv = { ...checked.env, ...wrapped.env };
      }
    } catch (error) {
      return errorResult(
        'sandbox_failed',
        `The command could not be sandboxed (${error instanceof Error ? error.message : String(error)}); it was not run.`,
        { argv, cwd },
      );
    }
    if (context.signal?.aborted) throw new ToolCancelledError(name, 'The command was not started.');
    const { outcome, stdout, stderr, timedOut, cancelled, durationMs, pid } = await spawnCapped(
      { file: spawnFile, args: spawnArgs, cwd, env: spawnEnv },
      {
        timeoutMs,
        killGraceMs: grace,
        maxOutputBytes: outputCap,
        ...(context.signal ? { signal: context.signal } : {}),
      },
    );

    if (cancelled) throw new ToolCancelledError(name, 'The process was stopped.');
    if (outcome.spawnError) {
      const code = outcome.spawnError.code ?? 'spawn_failed';
      if (code === 'ENOENT' && spawnFile === exe) return notFound(exe, argv, cwd);
      const what = spawnFile === exe ? `The program "${exe}"` : `The sandbox (${spawnFile})`;
      const message = code === 'EACCES' ? `${what} is not executable.` : `${what} could not be started (${code}).`;
      return errorResult('spawn_failed', message, { argv, cwd });
    }

    const structured = {
      argv,
      cwd,
      sandbox: checked.sandbox.kind,
      network: checked.sandbox.kind === 'none' || network,
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

  return {
    name,
    description:
      'Run a program with arguments (no shell) in a folder inside the allowed folders, in an OS sandbox where there is one (only the workspace is writable, no network unless network: true). Returns exit code, stdout and stderr (each capped), and whether it timed out.',
    inputSchema: toInputSchema(schema),
    annotations: {
      title: 'Run command',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
    guardrails,
    run,
  };
}
