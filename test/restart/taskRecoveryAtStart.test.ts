/**
 * Calls run as tasks survive kill -9 of the whole app, in the real start order (issue 28.1–2):
 * the browser-mode host process (`electron/web/cli.ts`) with three stdio servers running calls as
 * tasks — `fast` and `slow` (the 2026-07-28 task fixture, durable tasks; `slow` starts serving
 * only after a delay, so the servers become ready in their own order), and server-everything
 * (the 2025-11-25 `capabilities.tasks` form, its tasks kept per process).
 *
 * Each round: the GUI's calls become tasks on all three, the host's process group is killed with
 * SIGKILL (servers included), the durable tasks finish while nothing of the app runs, and the host
 * starts again on the same data folder. Nothing waits for a server: the client only watches
 * History. The recovery at start must wait for each server itself — the fast one's records settle
 * without waiting for the slow one — and store the server's result; the server-everything record
 * (a new process that no longer knows the task) must say so, stay "unknown" and keep its
 * resolution for the person. Every attempt is a trace of the call with a `task_check` event.
 *
 * Before the fix, recovery ran right after discovery started, `whenReady` refused the still-idle
 * servers, and every record stayed "in progress or unknown" (0 `tasks/get`), with no trace and no word.
 *
 * Rounds: TASK_RECOVERY_ROUNDS (default 2); the figure in the note came from 10.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryRecordView } from '../../shared/contract.js';
import type { TraceDetail, TraceSummary } from '../../shared/traces.js';
import { BridgeClient } from '../web/host.js';
import { PROJECT_ROOT, waitFor, sandboxWritingTo } from '../helpers/fixtures.js';
import { BUILT_TASK_FIXTURE, buildTaskFixture, releaseTask, taskEvents } from '../doubles/servers/taskPeer.js';
import { HostProcess, ok } from './restartSoak.js';

const ROUNDS = Number(process.env.TASK_RECOVERY_ROUNDS ?? 2);
/** Generous: each host start compiles TypeScript (tsx) on a busy machine. */
const WAIT_MS = 90_000;
/** The slow server answers nothing for this long after it is spawned. */
const SLOW_START_MS = 4_000;
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

interface RoundCalls {
  sessionId: string;
  fast: string;
  slow: string;
  everything: string;
}

interface RoundReport {
  /** Records of the durable tasks settled from the server after the restart (0–2). */
  recovered: number;
  everything: HistoryRecordView;
  checks: Array<{ callId: string; trigger: unknown; outcome: unknown }>;
}

describe('kill -9 of the whole app while servers run calls as tasks; the next start asks them in its own order', () => {
  const work = mkdtempSync(join(tmpdir(), 'mh-task-start-'));
  const dataDir = join(work, 'data');
  const tasksDir = join(work, 'tasks');
  const token = randomBytes(24).toString('base64url');
  const reports: RoundReport[] = [];
  let host: HostProcess | undefined;
  let client: BridgeClient | undefined;

  async function startHost(): Promise<BridgeClient> {
    host = await HostProcess.start(dataDir, token, [], [], { group: true });
    client = await BridgeClient.connect(host.port, { token });
    return client;
  }

  async function serversReady(c: BridgeClient, ids: string[]): Promise<void> {
    await waitFor(async () => {
      const list = await ok<Array<{ config: { id: string }; status: { state: string }; toolCount: number }>>(
        c,
        'servers.list',
        {},
      );
      return ids.every((id) => list.some((s) => s.config.id === id && s.status.state === 'ready' && s.toolCount > 0));
    }, WAIT_MS);
  }

  /** The GUI's three calls, each until its server has named its task (the id is then on the record). */
  async function callAsTasks(c: BridgeClient, round: number): Promise<RoundCalls> {
    const calls = { fast: `fast-${round}-${randomUUID()}`, slow: `slow-${round}-${randomUUID()}` };
    const everything = `everything-${round}-${randomUUID()}`;
    // A call that ends before its server names a task fails the round at once, with its answer (not after WAIT_MS).
    const answers = new Map<string, unknown>();
    const follow = (callId: string, answer: Promise<unknown>): void =>
      void answer.then(
        (value) => answers.set(callId, value),
        (error: unknown) => answers.set(callId, String(error)),
      );
    for (const [serverId, callId] of [
      ['fast', calls.fast],
      ['slow', calls.slow],
    ] as const)
      follow(callId, c.call('tools.call', { name: 'long_job', serverId, args: { label: callId }, callId }));
    follow(
      everything,
      c.call('tools.call', {
        name: 'simulate-research-query',
        serverId: 'everything',
        args: { topic: 'eels' },
        callId: everything,
      }),
    );
    const named = (callId: string): boolean =>
      c.events.some((e) => e.event === 'call.task' && (e.payload as { callId: string }).callId === callId);
    await waitFor(() => {
      for (const callId of [calls.fast, calls.slow, everything])
        if (!named(callId) && answers.has(callId))
          throw new Error(`${callId} ended before its server named a task: ${JSON.stringify(answers.get(callId))}`);
      return named(calls.fast) && named(calls.slow) && named(everything);
    }, WAIT_MS);
    const { current: sessionId } = await ok<{ current: string }>(c, 'history.sessions', {});
    return { sessionId, ...calls, everything };
  }

  async function record(c: BridgeClient, sessionId: string, callId: string): Promise<HistoryRecordView> {
    return ok<HistoryRecordView>(c, 'history.get', { sessionId, callId });
  }

  async function checksOf(c: BridgeClient, callIds: string[]): Promise<RoundReport['checks']> {
    const { traces } = await ok<{ traces: TraceSummary[] }>(c, 'traces.list', { limit: 500 });
    const details = await Promise.all(
      traces
        .filter((t) => callIds.includes(t.callId))
        .map((t) => ok<TraceDetail>(c, 'traces.get', { traceId: t.traceId })),
    );
    return details.flatMap((d) =>
      d.events
        .filter((e) => e.type === 'task_check')
        .map((e) => ({ callId: d.trace.callId, trigger: e.data.trigger, outcome: e.data.outcome })),
    );
  }

  beforeAll(
    async () => {
      await buildTaskFixture();
      let c = await startHost();
      const fixture = (id: string, env: Record<string, string> = {}) => ({
        mode: 'create',
        config: {
          id,
          name: id,
          transport: 'stdio',
          command: process.execPath,
          args: [BUILT_TASK_FIXTURE],
          cwd: PROJECT_ROOT,
          env: { TASKS_DIR: tasksDir, ...env },
          sandbox: sandboxWritingTo({ TASKS_DIR: tasksDir, ...env }),
          protocolEra: 'modern',
        },
      });
      await ok(c, 'servers.save', fixture('fast'));
      await ok(c, 'servers.save', fixture('slow', { START_DELAY_MS: String(SLOW_START_MS) }));
      await ok(c, 'servers.save', {
        mode: 'create',
        config: {
          id: 'everything',
          name: 'Everything',
          transport: 'stdio',
          command: process.execPath,
          args: [EVERYTHING, 'stdio'],
          cwd: PROJECT_ROOT,
        },
      });
      await serversReady(c, ['fast', 'slow', 'everything']);
      for (const [serverId, toolName] of [
        ['fast', 'long_job'],
        ['slow', 'long_job'],
        ['everything', 'simulate-research-query'],
      ])
        await ok(c, 'permissions.setToolLevel', { serverId, toolName, level: 'ALLOW' });

      for (let round = 0; round < ROUNDS; round++) {
        if (round > 0) await serversReady(c, ['fast', 'slow', 'everything']);
        const calls = await callAsTasks(c, round);
        c.close();
        await host!.stop('SIGKILL');
        // The durable tasks end while nothing of the app runs.
        for (const label of [calls.fast, calls.slow]) {
          const effect = taskEvents(tasksDir).find((e) => e.event === 'effect' && e.label === label);
          releaseTask(tasksDir, effect!.taskId);
        }

        // The next start: nothing here waits for a server — History alone is watched.
        c = await startHost();
        const settled = async (callId: string): Promise<boolean> =>
          (await record(c, calls.sessionId, callId)).status === 'completed';
        const noted = async (): Promise<boolean> =>
          (await record(c, calls.sessionId, calls.everything)).lastError?.code === 'task_unknown_to_server';
        let recovered = 0;
        await waitFor(
          async () => (await settled(calls.fast)) && (await settled(calls.slow)) && (await noted()),
          WAIT_MS,
          100,
        ).catch(() => undefined); // judged below, record by record
        for (const callId of [calls.fast, calls.slow]) if (await settled(callId)) recovered++;
        reports.push({
          recovered,
          everything: await record(c, calls.sessionId, calls.everything),
          checks: await checksOf(c, [calls.fast, calls.slow, calls.everything]),
        });
        const fast = await record(c, calls.sessionId, calls.fast);
        if (fast.status === 'completed') expect(JSON.stringify(fast.result)).toContain(`done ${calls.fast}`);
      }
      const total = reports.reduce((n, r) => n + r.recovered, 0);
      console.log(`recovered tasks after kill -9: ${total} of ${ROUNDS * 2} (${ROUNDS} kills, 2 durable tasks each)`);
    },
    (ROUNDS + 1) * 150_000,
  );

  afterAll(async () => {
    client?.close();
    await host?.stop('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('the durable tasks of every kill are recovered from their servers, the slow one included', () => {
    expect(reports.map((r) => r.recovered)).toEqual(Array<number>(ROUNDS).fill(2));
  });

  it('the task the restarted server no longer knows says so, stays unknown, and is left for the person', () => {
    for (const { everything } of reports) {
      expect(everything.status).toBe('unknown');
      expect(everything.taskId).toBeDefined();
      expect(everything.lastError).toMatchObject({ code: 'task_unknown_to_server' });
      expect(everything.lastError?.message).toMatch(/no longer knows task .*whether the tool acted is unknown/);
      expect(everything.resolvedBy).toBeUndefined();
    }
  });

  it('each attempt at start is a trace of its call with a task_check event', () => {
    for (const { checks } of reports) {
      expect(checks).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ trigger: 'start', outcome: 'answered' }),
          expect.objectContaining({ trigger: 'start', outcome: 'unknown_to_server' }),
        ]),
      );
      expect(checks.filter((c) => c.outcome === 'answered')).toHaveLength(2);
    }
  });
});
