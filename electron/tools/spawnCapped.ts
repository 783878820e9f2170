/**
 * Starts one process without a shell and waits for it, with a deadline, an abort signal and
 * capped output. run_command uses it after its checks, for the sandbox command line or, where
 * there is no sandbox, the program itself.
 *
 * The process runs in its own process group (POSIX) so that a timeout or an abort stops it and
 * everything it started: SIGTERM to the group first, SIGKILL after a grace period. (Under
 * bubblewrap the group holds bwrap; the sandbox's own processes die with it, --die-with-parent.)
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { CappedOutput } from './outputCapture.js';

/** After the process exits, how long its pipes may stay open (held by a leftover child). */
const DRAIN_MS = 500;

export interface SpawnRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
}

export interface SpawnLimits {
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Bytes kept of stdout and of stderr, each. */
  maxOutputBytes: number;
  signal?: AbortSignal;
}

interface SpawnOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  spawnError?: NodeJS.ErrnoException;
}

export interface SpawnResult {
  outcome: SpawnOutcome;
  stdout: CappedOutput;
  stderr: CappedOutput;
  timedOut: boolean;
  /** The abort signal stopped it. */
  cancelled: boolean;
  durationMs: number;
  pid: number | null;
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

export async function spawnCapped(request: SpawnRequest, limits: SpawnLimits): Promise<SpawnResult> {
  const stdout = new CappedOutput(limits.maxOutputBytes);
  const stderr = new CappedOutput(limits.maxOutputBytes);
  const started = performance.now();
  let timedOut = false;
  let cancelled = false;
  let graceTimer: NodeJS.Timeout | undefined;

  const child = spawn(request.file, [...request.args], {
    cwd: request.cwd,
    env: request.env,
    shell: false,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
    windowsHide: true,
  });
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

  const stop = () => {
    killTree(child, 'SIGTERM');
    graceTimer ??= setTimeout(() => killTree(child, 'SIGKILL'), limits.killGraceMs);
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    stop();
  }, limits.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    stop();
  };
  limits.signal?.addEventListener('abort', onAbort, { once: true });

  const outcome = await new Promise<SpawnOutcome>((resolveOutcome) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      resolveOutcome({ exitCode: null, signal: null, spawnError: error }),
    );
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
  limits.signal?.removeEventListener('abort', onAbort);
  return {
    outcome,
    stdout,
    stderr,
    timedOut,
    cancelled,
    durationMs: Math.round(performance.now() - started),
    pid: child.pid ?? null,
  };
}
