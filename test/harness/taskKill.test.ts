/**
 * A call the server runs as a task survives the core being killed: a child process runs
 * executeTool on the task fixture's `long_job` (a real stdio server, durable tasks); once the
 * server names the task the child is killed with SIGKILL (its whole process group, the server
 * too); the task finishes while nothing of the app runs. After the restart (a new pipeline on
 * the same database) the `started` record with the task id is resolved by asking the server:
 * completed with the server's result, and the same callId replays it — the side effect happened
 * once. A task that failed while the app was down is recorded failed with the server's reason;
 * one still working is followed to its end.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointFailedError } from '../../electron/checkpoints/errors.js';
import { recoverTaskCalls } from '../../electron/harness/taskRecovery.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import { buildTaskFixture, releaseTask, taskEvents, taskServerConfig } from '../doubles/servers/taskPeer.js';
import type { TestHarness } from './harness.js';
import { buildHarness } from './harness.js';

/** Runs the child until the server has named the task, then kills its group; resolves with the task id. */
function callThenKill(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(PROJECT_ROOT, 'test', 'harness', 'taskChild.ts'), ...args],
      {
        cwd: PROJECT_ROOT,
        detached: true, // its own process group: the kill takes the MCP server down with it
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let stderr = '';
    let taskId: string | undefined;
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
      const named = /task (\S+)\n/.exec(output);
      if (named && !taskId) {
        taskId = named[1]!;
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL'); // anything the group left behind
      } catch {
        // none
      }
      if (signal === 'SIGKILL' && taskId) resolve(taskId);
      else
        reject(
          new Error(`the task child ended without being killed (${String(signal)}): ${output} ${stderr.slice(-2000)}`),
        );
    });
  });
}

describe('a task outlives the app: kill -9 while the server runs it, resolved by asking the server at restart', () => {
  const scratch = scratchDir('mh-task-kill-');
  const dbFile = join(scratch.dir, 'harness.db');
  const tasksDir = join(scratch.dir, 'tasks');
  const harnesses: TestHarness[] = [];

  async function restart(): Promise<TestHarness> {
    const h = await buildHarness({
      dir: scratch.dir,
      dbFile,
      rules: [{ level: 'ALLOW', match: { serverId: 'tasks' } }],
    });
    harnesses.push(h);
    h.registry.addServer(taskServerConfig('tasks', tasksDir));
    await h.registry.discover();
    return h;
  }

  function recover(h: TestHarness): ReturnType<typeof recoverTaskCalls> {
    return recoverTaskCalls({
      links: h.taskLinks,
      registry: h.registry,
      redactResult: (r) => h.redactor.redactSecretValues(r),
      redactText: (t) => h.redactor.redactText(t),
      waitMs: 20_000,
    });
  }

  beforeAll(async () => {
    await buildTaskFixture();
  });

  afterAll(async () => {
    await Promise.all(harnesses.map((h) => h.close()));
    scratch.cleanup();
  });

  it('completed while down → stored and replayed; 0 duplicate side effects, 0 task records left unknown', async () => {
    const taskId = await callThenKill([scratch.dir, dbFile, tasksDir, 's1', 'ledger-1']);
    // The task finishes while the app is down.
    releaseTask(tasksDir, taskId);

    const h = await restart();
    const before = h.checkpoints.get('s1', 'ledger-1');
    expect(before).toMatchObject({ status: 'started', taskId });

    const recovery = await recover(h);
    expect(recovery.settled).toEqual([
      expect.objectContaining({ kind: 'completed', call: expect.objectContaining({ callId: 'ledger-1', taskId }) }),
    ]);
    expect(await recovery.following).toEqual([]);
    expect(h.checkpoints.get('s1', 'ledger-1')).toMatchObject({
      status: 'completed',
      taskId,
      result: { content: [{ type: 'text', text: 'done ledger' }], isError: false },
    });
    expect(h.taskLinks.pending()).toEqual([]);

    const replay = await h.harness.executeTool(
      'long_job',
      { label: 'ledger' },
      { userId: 'kill-test', sessionId: 's1', callId: 'ledger-1' },
    );
    expect(replay.replayed).toBe(true);
    expect(replay.result.content).toEqual([{ type: 'text', text: 'done ledger' }]);
    expect(taskEvents(tasksDir).filter((e) => e.event === 'effect' && e.label === 'ledger')).toHaveLength(1);
  }, 120_000);

  it('still working at restart → followed to its end, then replayed', async () => {
    const taskId = await callThenKill([scratch.dir, dbFile, tasksDir, 's2', 'ledger-2']);
    const h = await restart();
    const recovery = await recover(h);
    expect(recovery.settled).toEqual([]);
    expect(h.checkpoints.get('s2', 'ledger-2')).toMatchObject({ status: 'started', taskId });
    releaseTask(tasksDir, taskId);
    expect(await recovery.following).toEqual([expect.objectContaining({ kind: 'completed' })]);
    const replay = await h.harness.executeTool(
      'long_job',
      { label: 'ledger' },
      { userId: 'kill-test', sessionId: 's2', callId: 'ledger-2' },
    );
    expect(replay.replayed).toBe(true);
    expect(taskEvents(tasksDir).filter((e) => e.event === 'effect' && e.taskId === taskId)).toHaveLength(1);
  }, 120_000);

  it('in one run: the task id is on the record while it runs, the call returns its result, and the trace shows its life', async () => {
    const h = await restart();
    let taskId: string | undefined;
    let seenOnRecord: unknown;
    const call = h.harness.executeTool(
      'long_job',
      { label: 'audit' },
      {
        userId: 'kill-test',
        sessionId: 's4',
        callId: 'audit-1',
        onTask: (event) => {
          if (taskId) return;
          taskId = event.taskId;
          // Recorded before the caller hears of it: a crash from here on leaves a resolvable record.
          seenOnRecord = h.checkpoints.get('s4', 'audit-1')?.taskId;
          releaseTask(tasksDir, event.taskId);
        },
      },
    );
    const done = await call;
    expect(seenOnRecord).toBe(taskId);
    expect(done.result.content).toEqual([{ type: 'text', text: 'done audit' }]);
    expect(h.checkpoints.get('s4', 'audit-1')).toMatchObject({ status: 'completed', taskId });
    h.tracer.flush();
    const events = h.tracer.getTrace(done.traceId)?.events ?? [];
    expect(events.filter((e) => e.type === 'task').map((e) => e.data)).toEqual([
      expect.objectContaining({ taskId, status: 'working', statusMessage: 'working on audit' }),
      expect.objectContaining({ taskId, status: 'completed' }),
    ]);
  }, 60_000);

  it('a call that became a task is never sent again: its deadline ends the wait, not the task (even an idempotent tool on a trusted server)', async () => {
    const h = await restart();
    // A trusted server whose calls may take 3 s in all: the follow ends there, and the retry policy would resend an idempotent tool.
    h.registry.addServer({
      ...taskServerConfig('tasks-idem', tasksDir),
      trusted: true,
      timeoutMs: 3_000,
      maxTotalTimeoutMs: 3_000,
    });
    await h.registry.discover();
    await h.engine.addRule({ level: 'ALLOW', match: { serverId: 'tasks-idem' } });
    // The server must name its task inside the deadline for this to say anything; on a loaded
    // machine it may not (the call then ends as a plain timeout, with no task recorded), and the
    // call is made again, as a new call, with a deadline twice as long: the record decides.
    for (let timeoutMs = 3_000; ; timeoutMs *= 2) {
      const label = `idem-${timeoutMs}`;
      const callId = `idem-call-${timeoutMs}`;
      const error = await h.harness
        .executeTool(
          'idempotent_job',
          { label },
          { userId: 'kill-test', sessionId: 's5', callId, serverId: 'tasks-idem', timeoutMs },
        )
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      const record = h.checkpoints.get('s5', callId);
      if (record?.taskId === undefined && timeoutMs < 24_000) continue;
      expect(taskEvents(tasksDir).filter((e) => e.event === 'effect' && e.label === label)).toHaveLength(1);
      expect(record).toMatchObject({ status: 'started', attempts: 1 });
      expect(record?.taskId).toBeDefined();
      // Not cancelled on the server either: the next start asks it.
      expect(taskEvents(tasksDir).filter((e) => e.event === 'cancelled' && e.label === label)).toEqual([]);
      releaseTask(tasksDir, record!.taskId!);
      return;
    }
  }, 120_000);

  it('a recorded task that failed on the server → recorded failed with the server’s reason; the callId does not run again', async () => {
    const h = await restart();
    // A record whose task failed on the server: a doomed job, its owner gone before it looked.
    const claim = h.checkpoints.claim({
      sessionId: 's3',
      callId: 'doomed-1',
      userId: 'kill-test',
      toolName: 'doomed_job',
      serverId: 'tasks',
      argsHash: 'h',
      args: {},
      traceId: 't',
    });
    if (claim.kind !== 'owner') throw new Error('expected to own the claim');
    const client = h.registry.taskClient('tasks');
    expect(client).toBeDefined();
    const { MCPRemoteError } = await import('../../electron/mcp/errors.js');
    let doomedTask: string | undefined;
    await expect(
      h.registry.callServerTool(
        'tasks',
        'doomed_job',
        { label: 'archive' },
        { onTask: (e) => (doomedTask ??= e.taskId) },
      ),
    ).rejects.toBeInstanceOf(MCPRemoteError);
    expect(h.taskLinks.link('s3', 'doomed-1', claim.lease, doomedTask!)).toBe(true);
    const recovery = await recover(h);
    // (Records of the other tests, on servers this run has not added, stay as they were.)
    expect(recovery.settled.filter((o) => o.call.callId === 'doomed-1')).toEqual([
      expect.objectContaining({ kind: 'failed', reason: expect.stringMatching(/ran out of disk/) }),
    ]);
    expect(h.checkpoints.get('s3', 'doomed-1')).toMatchObject({
      status: 'failed',
      lastError: { code: 'task_failed', message: expect.stringMatching(/the job archive ran out of disk/) },
    });
    expect(() =>
      h.checkpoints.claim({
        sessionId: 's3',
        callId: 'doomed-1',
        userId: 'kill-test',
        toolName: 'doomed_job',
        serverId: 'tasks',
        argsHash: 'h',
        args: {},
        traceId: 't',
      }),
    ).toThrow(CheckpointFailedError);
  }, 60_000);
});
