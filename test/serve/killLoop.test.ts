/**
 * kill -9 of the instance that owns a call, in a loop (issue 36): two `miniharness serve`
 * processes on one PostgreSQL behind Debian's nginx; the caller talks to the balancer's one
 * address over the bridge (the CLI's and the page's path; their calls share one session through
 * PostgreSQL's app metadata). Each round: a call that completes, then a call that acts (its line
 * is in the side-effect file) and never answers; the instance that runs it (named by the line's
 * tag) is killed with SIGKILL; the caller retries the same callId through the balancer — the
 * other instance answers "still running, or its result is unknown" (in_progress) without running
 * it; every completed callId sent again replays its one result; the killed instance is started
 * again on its data folder and port. At the end, executions per callId are counted from the
 * file: none ran twice. The figures are printed for the note.
 */
import { expect, it, beforeAll, afterAll } from 'vitest';
import type { DispatchResult } from '../../shared/bridge.js';
import type { CallOutcome } from '../../shared/contract.js';
import { waitFor } from '../helpers/fixtures.js';
import { SERVER_ID } from '../restart/restartSoak.js';
import type { BridgeClient } from '../web/host.js';
import { describeBalanced } from './nginx.js';
import { TeamCluster, duplicatesIn } from './serveHarness.js';

const ROUNDS = 10;
/** Only a wrong answer (a cut-off call run again: it never answers) waits this long. */
const RESEND_DEADLINE_MS = 5_000;

describeBalanced('kill -9 of the owning instance mid-call, in a loop, behind nginx', () => {
  let cluster: TeamCluster;
  beforeAll(async () => {
    cluster = await TeamCluster.start('killloop');
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  /** The calls' session (the GUI's and CLI's, one for every instance). */
  async function sessionOf(client: BridgeClient): Promise<string | undefined> {
    const reply = await client.call('history.sessions', {});
    return reply.ok ? (reply.result as { current: string }).current : undefined;
  }

  const call = (client: BridgeClient, key: string, hold = false, timeoutMs?: number): Promise<DispatchResult> =>
    client.call('tools.call', {
      name: 'effect',
      serverId: SERVER_ID,
      args: { key, ...(hold ? { hold: true } : {}) },
      callId: key,
      ...(timeoutMs ? { timeoutMs } : {}),
    });

  it(`no callId runs twice over ${ROUNDS} kills of the owner; the retry through the balancer says in progress`, async () => {
    const completed = new Map<string, unknown>();
    const interrupted: string[] = [];
    const kills = { A: 0, B: 0 };
    let resends = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Two connections through the balancer (round robin: one on each instance); the held call goes on
      // the first or the second by turns, so the kills fall on both instances.
      const pair = [await cluster.bridge(), await cluster.bridge()];
      const client = pair[round % 2] as BridgeClient;
      const done = `loop-${round}-done`;
      const reply = await call(client, done);
      expect(reply, JSON.stringify(reply)).toMatchObject({ ok: true });
      if (reply.ok) completed.set(done, (reply.result as CallOutcome).result);

      const held = `loop-${round}-held`;
      void call(client, held, true);
      await waitFor(() => cluster.lines(held).length > 0, 60_000);
      const owner = cluster.instance(cluster.lines(held)[0]?.tag);
      expect((await owner.process.stop('SIGKILL')).signal).toBe('SIGKILL');
      kills[owner.name] += 1;
      interrupted.push(held);
      for (const c of pair) c.close();

      // The caller retries through the balancer: the other instance answers, and runs nothing again.
      const retry = await cluster.bridge();
      try {
        for (const key of interrupted) {
          const again = await call(retry, key, true, RESEND_DEADLINE_MS);
          resends += 1;
          expect(again.ok ? 'a result' : again.error.code, `${key}: ${JSON.stringify(again)}`).toBe('in_progress');
        }
        for (const [key, result] of completed) {
          const again = await call(retry, key);
          resends += 1;
          expect(again, key).toMatchObject({ ok: true, result: { replayed: true } });
          if (again.ok) expect((again.result as CallOutcome).result).toEqual(result);
        }
      } finally {
        retry.close();
      }
      await cluster.start(owner);
    }

    const executions = cluster.lines();
    const duplicates = duplicatesIn(executions);
    console.log(
      `kill loop: rounds ${ROUNDS}, kills ${kills.A + kills.B} (A ${kills.A}, B ${kills.B}), calls ${completed.size + interrupted.length} ` +
        `(completed ${completed.size}, interrupted ${interrupted.length}), re-sends ${resends}, executions ${executions.length}, duplicates ${duplicates}`,
    );
    expect(duplicates).toBe(0);
    expect(new Set(executions.map((e) => e.key)).size).toBe(completed.size + interrupted.length);
    expect(kills.A > 0 && kills.B > 0, JSON.stringify(kills)).toBe(true);

    // Once the owner's lease has expired (nobody renews it), the retry says the result is unknown; a
    // person resolves it in History (on whichever instance), and the retry then gets that stored outcome.
    const first = interrupted[0] as string;
    const client = await cluster.bridge();
    try {
      await waitFor(
        async () => {
          const again = await call(client, first, true, RESEND_DEADLINE_MS);
          return !again.ok && /lease expired/.test(again.error.message);
        },
        60_000,
        1_000,
      );
      const resolved = await client.call('history.resolve', {
        sessionId: await sessionOf(client),
        callId: first,
        resolution: { status: 'completed', resultText: 'checked on the remote side: written once' },
      });
      expect(resolved, JSON.stringify(resolved)).toMatchObject({ ok: true });
      const stored = await call(client, first, true, RESEND_DEADLINE_MS);
      expect(stored, JSON.stringify(stored)).toMatchObject({ ok: true, result: { replayed: true } });
      expect(JSON.stringify(stored)).toContain('checked on the remote side: written once');
    } finally {
      client.close();
    }
    expect(cluster.lines(first)).toHaveLength(1);
  }, 900_000);
});
