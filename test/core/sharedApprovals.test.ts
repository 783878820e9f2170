/**
 * The approval broker shared over PostgreSQL (electron/core/sharedApprovals.ts): two brokers, as
 * two instances, on one database — each its own pool and listening connection, so the only path
 * between them is the table and NOTIFY.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApprovalBroker } from '../../electron/core/approvalBroker.js';
import { runAsActor } from '../../electron/core/requestActor.js';
import { POSTGRES_APPROVAL_MIGRATIONS, SharedApprovals } from '../../electron/core/sharedApprovals.js';
import type { ApprovalRequest } from '../../electron/security/approvals.js';
import { waitForApproval } from '../../electron/security/approvals.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import type { EventName } from '../../shared/contract.js';
import { waitFor } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

interface Instance {
  broker: ApprovalBroker;
  events: Array<{ event: EventName; payload: unknown }>;
}

const closedOf = (instance: Instance, requestId: string) =>
  instance.events.find(
    (e) => e.event === 'approval.closed' && (e.payload as { requestId: string }).requestId === requestId,
  )?.payload;

describePostgres('ApprovalBroker shared over PostgreSQL', () => {
  let database: TestDatabase;
  const opened: PostgresDatabase[] = [];
  const shares: SharedApprovals[] = [];
  let a: Instance;
  let b: Instance;

  async function instance(closeBoundMs?: number): Promise<Instance> {
    const events: Instance['events'] = [];
    const broker = new ApprovalBroker(
      (event, payload) => events.push({ event, payload }),
      (v) => v,
      closeBoundMs,
    );
    const db = await openPostgres(database.url, { migrations: { approvals: POSTGRES_APPROVAL_MIGRATIONS } });
    opened.push(db);
    shares.push(await broker.share((on) => SharedApprovals.open(db.pool, database.url, on)));
    return { broker, events };
  }

  const newRequest = (): ApprovalRequest => ({
    requestId: randomUUID(),
    sessionId: 's',
    userId: 'agent',
    toolName: 'write_file',
    serverId: 'local',
    args: { path: 'x.txt' },
    reason: 'asks',
    expiresAt: Date.now() + 60_000,
  });

  /** Holds the request's row locked (a hung pool query for whoever UPDATEs it) while `body` runs. */
  async function withRowLocked<T>(
    requestId: string,
    body: (queued: (n: number) => Promise<boolean>) => Promise<T>,
  ): Promise<T> {
    // One client holds the lock; another watches the queue (a transaction sees one snapshot of pg_stat_activity).
    const locker = new pg.Client({ connectionString: database.url });
    const watcher = new pg.Client({ connectionString: database.url });
    await locker.connect();
    await watcher.connect();
    try {
      const queued = async (n: number) =>
        Number(
          (
            await watcher.query<{ n: string }>(
              `SELECT count(*) AS n FROM pg_stat_activity
               WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE mh_approvals%'`,
            )
          ).rows[0]?.n,
        ) === n;
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM mh_approvals WHERE request_id = $1 FOR UPDATE', [requestId]);
      try {
        return await body(queued);
      } finally {
        await locker.query('COMMIT');
      }
    } finally {
      await locker.end();
      await watcher.end();
    }
  }

  /**
   * A call waiting on A stops waiting (its caller gives up: the same close as a timeout) at the
   * instant Bob decides on B. A row lock held here queues the two UPDATEs in the order given, then
   * lets them go together: exactly one wins, the call does what the winner says, the loser is told.
   */
  async function raceTheClose(first: 'decision' | 'close') {
    const request = newRequest();
    const caller = new AbortController();
    const outcome = waitForApproval(a.broker.request, request, { timeoutMs: 60_000, signal: caller.signal });
    await waitFor(() => b.broker.list().some((v) => v.requestId === request.requestId));
    return withRowLocked(request.requestId, async (queued) => {
      let decided: Promise<{ ok: true } | { ok: false; error: unknown }> | undefined;
      const decide = () => {
        decided = runAsActor('Bob', () => b.broker.decide(request.requestId, 'allow-once')).then(
          () => ({ ok: true as const }),
          (error: unknown) => ({ ok: false as const, error }),
        );
      };
      if (first === 'decision') decide();
      else caller.abort();
      await waitFor(() => queued(1));
      if (first === 'decision') caller.abort();
      else decide();
      await waitFor(() => queued(2));
      return { decided: decided!, outcome };
    }).then(async ({ decided, outcome }) => ({ outcome: await outcome, decided: await decided }));
  }

  it('a decision queued before the waiting side’s close wins: the call runs with it', async () => {
    const { outcome, decided } = await raceTheClose('decision');
    expect(decided).toEqual({ ok: true });
    expect(outcome).toMatchObject({ answer: 'allow-once', cancelled: false, timedOut: false });
  });

  it('the waiting side’s close queued first wins: the call is denied and the decision is told why', async () => {
    const { outcome, decided } = await raceTheClose('close');
    expect(outcome).toMatchObject({ answer: 'deny', cancelled: true });
    expect(decided).toMatchObject({
      ok: false,
      error: {
        code: 'stale_approval',
        message: expect.stringMatching(/^The caller stopped waiting before your answer was recorded/) as string,
      },
    });
  });

  const ask = (on: Instance, signal = new AbortController().signal) => {
    const request = newRequest();
    return { requestId: request.requestId, answer: on.broker.request(request, signal) };
  };

  beforeAll(async () => {
    database = await createTestDatabase('broker');
    a = await instance();
    b = await instance();
  }, 30_000);
  afterAll(async () => {
    for (const s of shares) await s.close();
    for (const db of opened) await db.close();
    await database?.drop();
  });

  it('decided on B, the call waiting on A gets B’s answer; a later decision on A is told who decided', async () => {
    const { requestId, answer } = ask(a);
    await waitFor(() => b.broker.list().some((v) => v.requestId === requestId));
    await runAsActor('Bob', () => b.broker.decide(requestId, 'allow-session'));
    expect(await answer).toBe('allow-session');
    await waitFor(() => closedOf(a, requestId) !== undefined);
    expect(closedOf(a, requestId)).toEqual({
      requestId,
      outcome: 'answered',
      decidedBy: 'Bob',
      answer: 'allow-session',
    });
    await expect(runAsActor('Alice', () => a.broker.decide(requestId, 'deny'))).rejects.toMatchObject({
      code: 'stale_approval',
      message: expect.stringMatching(/^Bob already decided this approval \(allow-session\)/) as string,
    });
    expect([a.broker.list(), b.broker.list()]).toEqual([[], []]);
  });

  it('decided on A the moment it is asked, it is A’s decision (not refused before the row is written)', async () => {
    for (let i = 0; i < 10; i++) {
      const { requestId, answer } = ask(a);
      await runAsActor('Alice', () => a.broker.decide(requestId, 'allow-once'));
      expect(await answer).toBe('allow-once');
      // B learns of Alice's decision. B emits approval.closed only for a request it had listed (its
      // NOTIFY may not have arrived yet), so ask B itself: its decision is refused, naming Alice.
      await expect(runAsActor('Bob', () => b.broker.decide(requestId, 'deny'))).rejects.toMatchObject({
        code: 'stale_approval',
        message: expect.stringMatching(/^Alice already decided this approval \(allow-once\)/) as string,
      });
      await waitFor(() => !b.broker.list().some((v) => v.requestId === requestId));
      // If B did show it, B closed it as Alice's answer.
      expect([undefined, { requestId, outcome: 'answered', decidedBy: 'Alice', answer: 'allow-once' }]).toContainEqual(
        closedOf(b, requestId),
      );
    }
  });

  it('cancelled on A, withdrawn on B', async () => {
    const controller = new AbortController();
    const { requestId, answer } = ask(a, controller.signal);
    await waitFor(() => b.broker.list().some((v) => v.requestId === requestId));
    controller.abort();
    expect(await answer).toBe('deny');
    await waitFor(() => closedOf(b, requestId) !== undefined);
    expect(closedOf(b, requestId)).toEqual({ requestId, outcome: 'cancelled' });
    await expect(b.broker.decide(requestId, 'allow-once')).rejects.toMatchObject({ code: 'stale_approval' });
  });
  /**
   * The waiting side's close hangs (its UPDATE waits on a row lock, as on a pool that does not
   * answer): at the bound the call is denied and the dialog closes on its instance — before, the
   * request stayed pending (listed, dialog open) until the query returned, with no bound of its own.
   */
  it('a close the database does not answer ends at the bound: the call is denied and the dialog closes', async () => {
    const c = await instance(300);
    const request = newRequest();
    const caller = new AbortController();
    const outcome = waitForApproval(c.broker.request, request, { timeoutMs: 60_000, signal: caller.signal });
    await waitFor(() => b.broker.list().some((v) => v.requestId === request.requestId));
    await withRowLocked(request.requestId, async (queued) => {
      caller.abort();
      await waitFor(() => queued(1)); // the close's UPDATE waits
      expect(await outcome).toMatchObject({ answer: 'deny', cancelled: true });
      expect(closedOf(c, request.requestId)).toEqual({ requestId: request.requestId, outcome: 'cancelled' });
      expect(c.broker.list()).toEqual([]);
    });
    // The late UPDATE closes the row; B withdraws it; nothing more happens on C.
    await waitFor(() => closedOf(b, request.requestId) !== undefined);
    expect(c.events.filter((e) => e.event === 'approval.closed')).toHaveLength(1);
  });

  /**
   * A decision queued before the hung close wins in the database after the bound: the call was
   * already denied there, and the late answer is ignored (it does not reach the call; the broker's
   * entry is gone). The decider is told it won: the executor's bound ends the call without knowing
   * who won, and History records the denial.
   */
  it('a decision that wins after the bound does not reach the call already denied', async () => {
    const c = await instance(300);
    const request = newRequest();
    const caller = new AbortController();
    const outcome = waitForApproval(c.broker.request, request, { timeoutMs: 60_000, signal: caller.signal });
    await waitFor(() => b.broker.list().some((v) => v.requestId === request.requestId));
    const { decided } = await withRowLocked(request.requestId, async (queued) => {
      const decision = runAsActor('Bob', () => b.broker.decide(request.requestId, 'allow-once'));
      await waitFor(() => queued(1));
      caller.abort();
      await waitFor(() => queued(2));
      expect(await outcome).toMatchObject({ answer: 'deny', cancelled: true });
      return { decided: decision }; // awaited once the lock is released
    });
    // Bob's UPDATE came first: it won in the table (he is told so), but the call had ended denied at the bound.
    await expect(decided).resolves.toBeUndefined();
    expect(closedOf(c, request.requestId)).toEqual({ requestId: request.requestId, outcome: 'cancelled' });
    expect(c.broker.list()).toEqual([]);
  });

  /**
   * A row past its expiry that nobody decided or closed (its waiting instance is gone, or has not
   * closed it yet): a decision is refused saying its time ran out — not that it "expired" and "the
   * call was denied", which the deciding instance does not know.
   */
  it('a decision on a request past its expiry that no one closed is told its time ran out', async () => {
    const c = await instance();
    const request = { ...newRequest(), expiresAt: Date.now() + 300 };
    void c.broker.request(request, new AbortController().signal);
    await waitFor(() => b.broker.list().some((v) => v.requestId === request.requestId));
    await waitFor(() => Date.now() > request.expiresAt + 10, 2_000);
    await expect(runAsActor('Bob', () => b.broker.decide(request.requestId, 'allow-once'))).rejects.toMatchObject({
      code: 'stale_approval',
      message: expect.stringMatching(/^This approval request's time ran out before your answer was recorded/) as string,
    });
  });
});
