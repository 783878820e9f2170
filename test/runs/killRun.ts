/**
 * The kill -9 tests' two halves: a run started in a child process (runChild.ts) and killed with
 * SIGKILL — its whole process group, its MCP server with it — at the moment the test waits for;
 * then the run resumed from the same database in this process, with each call left "in progress
 * or unknown" resolved as a person would in History, until it ends.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ModelConfig } from '../../electron/models/providerFactory.js';
import type { CheckpointResult } from '../../electron/checkpoints/types.js';
import type { RunRecord } from '../../electron/runs/types.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';
import type { RunHarness } from './runHarness.js';

export interface KillFigures {
  runs: number;
  kills: number;
  resumes: number;
  resolved: number;
  duplicates: number;
}

export interface KilledRunFiles {
  dir: string;
  dbFile: string;
  counter: string;
  events: string;
}

/**
 * Starts run `runId` in a child and kills it once `moment` resolves (the test's kill point).
 * `moment` gets the child's output so far; the run must not have settled before the kill.
 */
export async function runUntilKilled(
  files: KilledRunFiles,
  run: { origin: string; runId: string; kind: ModelConfig['kind']; tasksDir?: string },
  moment: (output: () => string) => Promise<void>,
): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(PROJECT_ROOT, 'test', 'runs', 'runChild.ts'),
      files.dir,
      files.dbFile,
      files.counter,
      files.events,
      run.origin,
      run.runId,
      run.kind,
      ...(run.tasksDir ? [run.tasksDir] : []),
    ],
    {
      cwd: PROJECT_ROOT,
      detached: true, // its own process group: the kill takes its MCP server down with it
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  try {
    await moment(() => stdout);
    expect(stdout, stderr).not.toContain('settled');
    process.kill(-(child.pid ?? 0), 'SIGKILL');
    expect(await exited).toBe('SIGKILL');
  } finally {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // the group is gone
    }
  }
}

/**
 * Resumes the killed run until it ends. A call left `started` is resolved as completed with
 * `resolvedResult(args)` — what the person who resolves it records — and the run resumed again.
 */
export async function resumeToEnd(
  rh: RunHarness,
  runId: string,
  figures: KillFigures,
  resolvedResult: (args: Record<string, unknown>) => CheckpointResult,
): Promise<RunRecord> {
  expect(rh.store.markInterrupted()).toBe(1);
  expect(rh.store.require(runId).status).toBe('interrupted');
  await rh.engine.resume(runId);
  figures.resumes += 1;
  let run = await rh.engine.settled(runId);
  for (let round = 0; round < 5 && run.status === 'needs_resolution'; round++) {
    const callId = run.outcome?.callId ?? '';
    const stuck = rh.h.checkpoints.get(runId, callId);
    expect(stuck?.status).toBe('started');
    rh.h.checkpoints.resolveManually(runId, callId, {
      status: 'completed',
      result: resolvedResult((stuck?.args ?? {}) as Record<string, unknown>),
    });
    figures.resolved += 1;
    await rh.engine.resume(runId);
    figures.resumes += 1;
    run = await rh.engine.settled(runId);
  }
  return run;
}
