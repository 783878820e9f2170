/**
 * Task recovery in the start order (harness/taskRecovery.ts, `TaskRecoveryService`), with the task
 * fixture over stdio and the real registry: a `started` record carrying a real server task id —
 * - recovery started before discovery (the server still `idle`) waits for the server and settles
 *   the record (before: `whenReady` refused the idle server and the record was dropped silently);
 * - a server not ready within the bound leaves the record unknown saying why (its last error), with
 *   a trace of the attempt; when the server becomes ready later, it is asked again and the record settles;
 * - a server that no longer knows the task: the record says so (`task_unknown_to_server`), stays
 *   `started`, and a reconnect does not ask again about it.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskRecoveryService } from '../../electron/harness/taskRecovery.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import { buildTaskFixture, releaseTask, taskServerConfig } from '../doubles/servers/taskPeer.js';
import type { TestHarness } from './harness.js';
import { buildHarness } from './harness.js';

describe('task recovery waits for each server, and asks again when one becomes ready later', () => {
  const scratch = scratchDir('mh-task-order-');
  const tasksDir = join(scratch.dir, 'tasks');
  const harnesses: TestHarness[] = [];
  const services: TaskRecoveryService[] = [];

  async function harness(name: string): Promise<TestHarness> {
    const h = await buildHarness({ dir: scratch.dir, dbFile: join(scratch.dir, `${name}.db`), rules: [] });
    harnesses.push(h);
    return h;
  }

  /** A `started` record whose call the server runs as a (real, finished) task, its owner gone. */
  async function orphanedTask(h: TestHarness, serverId: string, callId: string): Promise<string> {
    let taskId: string | undefined;
    await h.registry.callServerTool(
      serverId,
      'long_job',
      { label: callId },
      {
        onTask: (e) => {
          if (taskId) return;
          taskId = e.taskId;
          releaseTask(tasksDir, e.taskId);
        },
      },
    );
    const claim = h.checkpoints.claim({
      sessionId: 's',
      callId,
      userId: 'order-test',
      toolName: 'long_job',
      serverId,
      argsHash: 'h',
      args: {},
      traceId: 't',
    });
    if (claim.kind !== 'owner') throw new Error('expected to own the claim');
    expect(h.taskLinks.link('s', callId, claim.lease, taskId!)).toBe(true);
    return taskId!;
  }

  function service(h: TestHarness, waitMs: number): TaskRecoveryService {
    const s = new TaskRecoveryService({
      links: h.taskLinks,
      registry: h.registry,
      redactResult: (r) => h.redactor.redactSecretValues(r),
      redactText: (t) => h.redactor.redactText(t),
      tracer: h.tracer,
      waitMs,
      isRunning: (sessionId, callId) => h.harness.isRunning(sessionId, callId),
    });
    services.push(s);
    return s;
  }

  function checks(h: TestHarness, callId: string): unknown[] {
    h.tracer.flush();
    return (
      h.tracer
        .listTraces({ limit: 100 })
        .traces.filter((t) => t.callId === callId)
        // Oldest first (trace ids are time-ordered).
        .sort((a, b) => a.traceId.localeCompare(b.traceId))
        .flatMap((t) => h.tracer.getTrace(t.traceId)?.events ?? [])
        .filter((e) => e.type === 'task_check')
        .map((e) => e.data)
    );
  }

  beforeAll(async () => {
    await buildTaskFixture();
  });

  afterAll(async () => {
    for (const s of services) s.stop();
    await Promise.all(harnesses.map((h) => h.close()));
    scratch.cleanup();
  });

  it('started while the server is still idle (before discovery): waits for it and settles the record', async () => {
    const before = await harness('idle-before');
    before.registry.addServer(taskServerConfig('tasks', tasksDir));
    await before.registry.discover();
    const taskId = await orphanedTask(before, 'tasks', 'idle-1');
    await before.close();

    // The app's start: the server is added (idle), recovery starts, then discovery.
    const h = await harness('idle-before');
    h.registry.addServer(taskServerConfig('tasks', tasksDir));
    expect(h.registry.status('tasks')?.state).toBe('idle');
    const recovery = service(h, 30_000).start();
    void h.registry.discover();
    const { settled } = await recovery;
    expect(settled).toEqual([expect.objectContaining({ kind: 'completed' })]);
    expect(h.checkpoints.get('s', 'idle-1')).toMatchObject({ status: 'completed', taskId });
    expect(checks(h, 'idle-1')).toEqual([expect.objectContaining({ trigger: 'start', outcome: 'answered' })]);
  }, 60_000);

  it('not ready within the bound: the record says so and a trace shows the attempt; ready later: asked again, settled', async () => {
    const h = await harness('later');
    h.registry.addServer(taskServerConfig('tasks', tasksDir));
    await h.registry.discover();
    await orphanedTask(h, 'tasks', 'later-1');
    await h.registry.disconnect('tasks');

    const s = service(h, 200);
    const { settled } = await s.start();
    expect(settled).toEqual([expect.objectContaining({ kind: 'unresolved', why: 'server_unavailable' })]);
    expect(h.checkpoints.get('s', 'later-1')).toMatchObject({
      status: 'started',
      lastError: { code: 'task_server_unavailable', message: expect.stringMatching(/could not be asked/) },
    });
    expect(checks(h, 'later-1')).toEqual([
      expect.objectContaining({ trigger: 'start', outcome: 'server_unavailable' }),
    ]);

    // The person connects the server: its records are asked about again.
    await h.registry.connect('tasks');
    await waitFor(() => h.checkpoints.get('s', 'later-1')?.status === 'completed', 20_000);
    expect(checks(h, 'later-1')).toEqual([
      expect.objectContaining({ trigger: 'start', outcome: 'server_unavailable' }),
      expect.objectContaining({ trigger: 'server_ready', outcome: 'answered' }),
    ]);
  }, 60_000);

  it('a task the server no longer knows: the record says so and stays unknown; a reconnect does not ask again', async () => {
    const h = await harness('forgotten');
    h.registry.addServer(taskServerConfig('tasks', tasksDir));
    await h.registry.discover();
    const taskId = await orphanedTask(h, 'tasks', 'forgotten-1');
    // The server forgets it (as a stdio server keeping its tasks per process does when restarted).
    rmSync(join(tasksDir, `${taskId}.json`));

    const s = service(h, 10_000);
    const { settled } = await s.start();
    expect(settled).toEqual([expect.objectContaining({ kind: 'unresolved', why: 'unknown_to_server' })]);
    expect(h.checkpoints.get('s', 'forgotten-1')).toMatchObject({
      status: 'started',
      taskId,
      lastError: {
        code: 'task_unknown_to_server',
        message: expect.stringMatching(/no longer knows task .*whether the tool acted is unknown/),
      },
    });
    expect(h.checkpoints.get('s', 'forgotten-1')?.resolvedBy).toBeUndefined();

    await h.registry.disconnect('tasks');
    await h.registry.connect('tasks');
    // The person may still ask; a reconnect alone does not.
    const asked = await s.ask('s', 'forgotten-1');
    expect(asked).toEqual([expect.objectContaining({ kind: 'unresolved', why: 'unknown_to_server' })]);
    expect(checks(h, 'forgotten-1')).toEqual([
      expect.objectContaining({ trigger: 'start', outcome: 'unknown_to_server' }),
      expect.objectContaining({ trigger: 'person', outcome: 'unknown_to_server' }),
    ]);
  }, 60_000);
});
