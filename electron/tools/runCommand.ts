/**
 * run_command: runs `[executable, ...args]` without a shell, in a folder inside the roots, with
 * an allow-listed environment, a deadline and capped output.
 *
 * The process runs in its own process group (POSIX) so that a timeout or an abort stops it and
 * everything it started: SIGTERM to the group first, SIGKILL after a grace period.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import type { CommandGuardConfig, CommandGuardResult } from '../security/commandGuard.js';
import { checkCommand } from '../security/commandGuard.js';
import type { GuardrailResult } from '../security/guardrails.js';
import { GUARDRAIL_OK, guardrailRefusal } from '../security/guardrails.js';
import { validatePath } from '../security/pathGuard.js';
import type { NormalizedToolResult } from '../mcp/types.js';
import { parseToolArgs, toInputSchema } from './args.js';
import { DEFAULT_ENV_ALLOW_LIST, buildCommandEnv } from './commandEnv.js';
import { ToolCancelledError } from './errors.js';
import { CappedOutput } from './outputCapture.js';
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
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
export const MAX_COMMAND_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
export const DEFAULT_KILL_GRACE_MS = 2_000;
/** After the process exits, how long its pipes may stay open (held by a leftover child). */
const DRAIN_MS = 500;

interface Outcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  spawnError?: NodeJS.ErrnoException;
}

/** Signals the whole process group where there is one, so children go too. */
function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

export function createRunCommandTool(options: RunCommandToolOptions): LocalTool {
  const maxTimeout = options.maxTimeoutMs ?? MAX_COMMAND_TIMEOUT_MS;
  const defaultTimeout = Math.min(options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS, maxTimeout);
  const outputCap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const schema = z
    .object({
      argv: z.array(z.string()).min(1).describe('The program and its arguments, e.g. ["git", "status"]. No shell: pipes, globs and $VARS are not interpreted.'),
      cwd: z.string().min(1).optional().describe('Working folder inside the allowed folders (default: the first one).'),
      timeoutMs: z.number().int().positive().optional().describe(`Deadline in ms (default ${defaultTimeout}, at most ${maxTimeout}).`),
    })
    .strict();
  const name = 'run_command';
  const env = () => buildCommandEnv(options.baseEnv ?? process.env, options.envAllowList ?? DEFAULT_ENV_ALLOW_LIST, options.extraEnv);

  /** The checks guardrails and run share: arguments, cwd in the roots, the command guard. */
  async function check(args: Record<string, unknown>): Promise<{ argv: string[]; cwd: string; timeoutMs: number; env: Record<string, string>; guard: CommandGuardResult }> {
    const parsed = parseToolArgs(name, schema, args);
    const cwd = await validatePath(parsed.cwd ?? '.', options.roots);
    const childEnv = env();
    const guard = await checkCommand(parsed.argv, options.commandGuard, { cwd, path: childEnv.PATH ?? '' });
    return { argv: parsed.argv, cwd, timeoutMs: Math.min(parsed.timeoutMs ?? defaultTimeout, maxTimeout), env: childEnv, guard };
  }

  async function guardrails(args: Record<string, unknown>): Promise<GuardrailResult> {
    try {
      const { guard } = await check(args);
      return guard.ok ? GUARDRAIL_OK : guardrailRefusal(`the command guard refused it (${guard.rule}): ${guard.reason}`);
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
    const { argv, cwd, timeoutMs, guard } = checked;
    if (!guard.ok) {
      return errorResult('command_refused', `The command guard refused this command (${guard.rule}): ${guard.reason}`, { rule: guard.rule });
    }
    if (!(await stat(cwd).catch(() => undefined))?.isDirectory()) {
      return errorResult('cwd_missing', `The working folder "${String(args.cwd ?? '.')}" does not exist or is not a folder.`);
    }
    if (context.signal?.aborted) throw new ToolCancelledError(name, 'The command was not started.');

    const [exe = '', ...rest] = argv;
    const stdout = new CappedOutput(outputCap);
    const stderr = new CappedOutput(outputCap);
    const started = performance.now();
    let timedOut = false;
    let cancelled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const child = spawn(exe, rest, {
      cwd,
      env: checked.env,
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

    const stop = () => {
      killTree(child, 'SIGTERM');
      graceTimer ??= setTimeout(() => killTree(child, 'SIGKILL'), grace);
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    context.signal?.addEventListener('abort', onAbort, { once: true });

    const outcome = await new Promise<Outcome>((resolveOutcome) => {
      child.once('error', (error: NodeJS.ErrnoException) => resolveOutcome({ exitCode: null, signal: null, spawnError: error }));
      child.once('exit', (exitCode, signal) => {
        const drain = setTimeout(() => {
          // Something it started still holds the pipes; stop it and stop listening.
          killTree(child, 'SIGKILL');
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolveOutcome({ exitCode, signal });
        }, DRAIN_MS);
        child.once('close', () => {
          clearTimeout(drain);
          resolveOutcome({ exitCode, signal });
        });
      });
    });
    clearTimeout(deadline);
    clearTimeout(graceTimer);
    context.signal?.removeEventListener('abort', onAbort);
    const durationMs = Math.round(performance.now() - started);

    if (cancelled) throw new ToolCancelledError(name, 'The process was stopped.');
    if (outcome.spawnError) {
      const code = outcome.spawnError.code ?? 'spawn_failed';
      const message =
        code === 'ENOENT'
          ? `The program "${exe}" was not found. Check the name, or that it is installed and on PATH.`
          : code === 'EACCES'
            ? `The program "${exe}" is not executable.`
            : `The program "${exe}" could not be started (${code}).`;
      return errorResult(code === 'ENOENT' ? 'command_not_found' : 'spawn_failed', message, { argv, cwd });
    }

    const structured = {
      argv,
      cwd,
      pid: child.pid ?? null,
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
      out.total === 0 ? '' : `\n--- ${label} ---\n${out.text()}${out.truncated ? `\n[${label} truncated: ${out.total} bytes, first ${out.capBytes} shown]` : ''}`;
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
      'Run a program with arguments (no shell) in a folder inside the allowed folders. Returns exit code, stdout and stderr (each capped), and whether it timed out.',
    inputSchema: toInputSchema(schema),
    annotations: { title: 'Run command', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    guardrails,
    run,
  };
}
