/**
 * A run killed -9 while its tool call ran on the server as a task (the task fixture, durable
 * tasks): at restart the app's task recovery asks the server, and the run's Resume uses that
 * outcome instead of stopping at "in progress or unknown" — the call's result is the task's, the
 * side effect happened once, and no person had to resolve anything. A task still working when
 * Resume is pressed is waited for; a call the server never made a task of still stops the run.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoverTaskCalls } from '../../electron/harness/taskRecovery.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { LoopbackRequest, ScriptedTurn } from '../doubles/providers/loopbackProvider.js';
import { LoopbackProvider } from '../doubles/providers/loopbackProvider.js';
import { buildTaskFixture, releaseTask, taskEvents } from '../doubles/servers/taskPeer.js';
import type { KillFigures } from './killRun.js';
import { runUntilKilled } from './killRun.js';
import type { RunHarness } from './runHarness.js';
import { buildRunHarness } from './runHarness.js';

const ALLOW = [{ level: 'ALLOW' as const, match: { serverId: 'fx' } }];

/** The task id the child's pipeline recorded on the call's checkpoint (read from its database). */
function recordedTaskId(dbFile: string, callId: string): string | undefined {
  try {
    const db = new Database(dbFile, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('SELECT task_id FROM checkpoints WHERE call_id = ?').get(callId) as
        { task_id: string | null } | undefined;
      return row?.task_id ?? undefined;
    } finally {
      db.close();
    }
  } catch {
    return undefined; // not created yet
  }
}

describe('a run resumed after kill -9 uses the outcome of a call its server ran as a task', () => {
  const scratch = scratchDir('mh-run-task-');
  let loopback: LoopbackProvider;
  const open: RunHarness[] = [];

  beforeAll(async () => {
    await buildTaskFixture();
    loopback = await new LoopbackProvider((request: LoopbackRequest): ScriptedTurn =>
      request.toolResults === 0
        ? {
            kind: 'reply',
            text: ['Starting the job.'],
            toolCalls: [{ id: 'toolu_task1', name: 'long_job', args: { label: `job-${String(request.body.model)}` } }],
          }
        : { kind: 'reply', text: [`Saw: ${request.resultTexts.join(' | ')}`] },
    ).start();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(open.map((rh) => rh.close()));
    await loopback.close();
    scratch.cleanup();
  });

  /** Runs the child until the server has named the call's task, kills it; returns the task id. */
  async function killWhileTaskRuns(
    name: string,
  ): Promise<{ dir: string; dbFile: string; tasksDir: string; taskId: string; runId: string }> {
    const dir = join(scratch.dir, name);
    const files = {
      dir,
      dbFile: join(dir, 'app.db'),
      counter: join(dir, 'counter.txt'),
      events: join(dir, 'events.jsonl'),
    };
    const tasksDir = join(dir, 'tasks');
    const runId = `run-task-${name}`;
    let taskId: string | undefined;
    await runUntilKilled(files, { origin: loopback.origin, runId, kind: 'anthropic', tasksDir }, async (output) => {
      await expect
        .poll(
          () => (taskId = recordedTaskId(files.dbFile, 'toolu_task1')) !== undefined || output().includes('settled'),
          { timeout: 30_000, interval: 5 },
        )
        .toBe(true);
    });
    return { dir, dbFile: files.dbFile, tasksDir, taskId: taskId ?? '', runId };
  }

  async function restart(killed: { dir: string; dbFile: string; tasksDir: string }): Promise<RunHarness> {
    const rh = await buildRunHarness({
      dir: killed.dir,
      dbFile: killed.dbFile,
      counter: join(killed.dir, 'counter.txt'),
      rules: ALLOW,
      tasksDir: killed.tasksDir,
    });
    open.push(rh);
    expect(rh.store.markInterrupted()).toBe(1);
    return rh;
  }

  const recover = (rh: RunHarness) =>
    recoverTaskCalls({
      links: rh.h.taskLinks,
      registry: rh.h.registry,
      redactResult: (r) => rh.h.redactor.redactSecretValues(r),
      redactText: (t) => rh.h.redactor.redactText(t),
      waitMs: 20_000,
    });

  it('the task finished while the app was down: Resume completes the run with the task result, once', async () => {
    const killed = await killWhileTaskRuns('done');
    releaseTask(killed.tasksDir, killed.taskId);
    const rh = await restart(killed);
    rh.taskOutcomes.track(recover(rh));
    await rh.engine.resume(killed.runId);
    const run = await rh.engine.settled(killed.runId);
    expect(run.status).toBe('completed');
    expect(rh.store.toolCalls(killed.runId)[0]?.result).toEqual({ text: 'done job-loopback-model', isError: false });
    expect(loopback.requests.at(-1)?.resultTexts).toEqual(['done job-loopback-model']);
    expect(taskEvents(killed.tasksDir).filter((e) => e.event === 'effect')).toHaveLength(1);
  }, 120_000);

  it('the task still works at Resume: the run waits for it, then carries on with its result — nothing for the person to resolve', async () => {
    const killed = await killWhileTaskRuns('working');
    const rh = await restart(killed);
    const recovery = recover(rh);
    rh.taskOutcomes.track(recovery);
    const figures: KillFigures = { runs: 1, kills: 1, resumes: 0, resolved: 0, duplicates: 0 };
    await rh.engine.resume(killed.runId);
    figures.resumes += 1;
    // The recovery's first look finds the task working and follows it; the run is still running, not stopped for the person.
    expect((await recovery).settled).toEqual([]);
    expect(rh.engine.isRunning(killed.runId)).toBe(true);
    releaseTask(killed.tasksDir, killed.taskId);
    const run = await rh.engine.settled(killed.runId);
    expect(run.status).toBe('completed');
    expect(rh.store.toolCalls(killed.runId)[0]?.result).toEqual({ text: 'done job-loopback-model', isError: false });
    expect(taskEvents(killed.tasksDir).filter((e) => e.event === 'effect' && e.taskId === killed.taskId)).toHaveLength(
      1,
    );
    process.stdout.write(`run resumed from a task: ${JSON.stringify(figures)}\n`);
  }, 120_000);

  it('without the task recovery (no task outcome to use) the run still stops at the unknown call', async () => {
    const killed = await killWhileTaskRuns('untracked');
    const rh = await restart(killed);
    await rh.engine.resume(killed.runId);
    expect(await rh.engine.settled(killed.runId)).toMatchObject({
      status: 'needs_resolution',
      outcome: { code: 'in_progress', callId: 'toolu_task1' },
    });
    releaseTask(killed.tasksDir, killed.taskId);
  }, 120_000);
});
