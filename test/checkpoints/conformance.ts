/**
 * The behaviour every CheckpointStore must have, written only against the interface. Run it for
 * an implementation with `describeCheckpointStoreConformance(name, factory)`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CheckpointArgumentsMismatchError,
  CheckpointFailedError,
  CheckpointInProgressError,
  CheckpointLeaseLostError,
  CheckpointNotFoundError,
  CheckpointNotResolvableError,
} from '../../electron/checkpoints/errors.js';
import { checkpointArguments, hashArguments } from '../../electron/checkpoints/hash.js';
import { REDACTED, redactReporting, redactString } from '../../electron/secrets/redaction.js';
import type {
  CheckpointRecord,
  CheckpointResult,
  CheckpointStorage,
  ClaimInput,
  GroupedCheckpointWrites,
  HistoryQuery,
} from '../../electron/checkpoints/types.js';
import type { Clock } from '../../electron/storage/clock.js';

export interface ConformanceSubject {
  /** Built with the given clock, `leaseMs: LEASE_MS` and no heartbeat (the tests renew by hand). */
  store: CheckpointStorage;
  /** The implementation's grouped writes, when it has them (the tool-call path of the SQLite store). */
  grouped?: GroupedCheckpointWrites;
  /** A second store on the same database through its own connection (not for an in-memory one). */
  reopen?: () => Promise<{ store: CheckpointStorage; close(): Promise<void> }>;
  /** Every byte the database keeps of its checkpoints, as text: what is "at rest". */
  storedText(): Promise<string>;
  /**
   * Writes `count` completed records of `sessionId` straight into the table (fixture data: 100k
   * claims through the interface would take minutes on a network database), one per ms from `t0`.
   */
  seedHistory(sessionId: string, count: number, t0: number): Promise<void>;
  close(): Promise<void> | void;
}

/** Builds a fresh, empty store that reads time from `clock`. */
export type CheckpointStoreFactory = (clock: Clock) => ConformanceSubject | Promise<ConformanceSubject>;

/** The lease duration every subject is built with. */
export const LEASE_MS = 10_000;

const T0 = 1_700_000_000_000;

export function callInput(
  callId: string,
  overrides: Partial<ClaimInput> & { rawArgs?: Record<string, unknown> } = {},
): ClaimInput {
  const { rawArgs = { path: `/tmp/${callId}` }, ...rest } = overrides;
  return {
    sessionId: 's1',
    callId,
    userId: 'u1',
    toolName: 'write_file',
    serverId: 'fs',
    argsHash: hashArguments(rawArgs),
    args: rawArgs,
    traceId: `trace-${callId}`,
    ...rest,
  };
}

export function textResult(text: string, structured?: Record<string, unknown>): CheckpointResult {
  return { content: [{ type: 'text', text }], structuredContent: structured, isError: false };
}

export function describeCheckpointStoreConformance(name: string, factory: CheckpointStoreFactory): void {
  describe(`CheckpointStore conformance: ${name}`, () => {
    let subject: ConformanceSubject;
    let store: CheckpointStorage;
    let time: number;
    const clock: Clock = () => time;

    beforeEach(async () => {
      time = T0;
      subject = await factory(clock);
      store = subject.store;
    });
    afterEach(async () => {
      await subject.store.close();
      await subject.close();
    });

    const owner = async (input: ClaimInput) => {
      const claimed = await store.claim(input);
      if (claimed.kind !== 'owner') throw new Error(`expected to own ${input.callId}, got ${claimed.kind}`);
      return claimed;
    };

    describe('claim', () => {
      it('makes the first caller the owner with a random lease and a started record', async () => {
        const input = callInput('c1');
        const first = await owner(input);
        const second = await owner(callInput('c2'));

        expect(first.lease).toMatch(/^[\w-]{16,}$/);
        expect(second.lease).not.toBe(first.lease);
        expect(first.record).toEqual({
          sessionId: 's1',
          callId: 'c1',
          userId: 'u1',
          toolName: 'write_file',
          serverId: 'fs',
          status: 'started',
          argsHash: input.argsHash,
          args: { path: '/tmp/c1' },
          attempts: 0,
          traceId: 'trace-c1',
          createdAt: T0,
          updatedAt: T0,
        });
        expect(await store.get('s1', 'c1')).toEqual(first.record);
        expect(JSON.stringify(await store.get('s1', 'c1'))).not.toContain(first.lease);
      });

      it('keys records by session and callId: the same callId in another session is another call', async () => {
        await owner(callInput('c1'));
        expect((await store.claim(callInput('c1', { sessionId: 's2' }))).kind).toBe('owner');
      });

      it('replays a completed call with the identical result, as often as asked, without changing it', async () => {
        const withStructured = textResult('written', { bytes: 12, nested: { ok: true } });
        const plain = textResult('plain');
        const a = await owner(callInput('a'));
        const b = await owner(callInput('b'));
        time += 25;
        const completed = await store.complete('s1', 'a', a.lease, withStructured);
        await store.complete('s1', 'b', b.lease, plain);
        expect(completed).toMatchObject({
          status: 'completed',
          result: withStructured,
          createdAt: T0,
          updatedAt: T0 + 25,
        });

        time += 1_000;
        for (let i = 0; i < 2; i++) {
          const replay = await store.claim(callInput('a'));
          expect(replay.kind).toBe('replay');
          expect(replay.record.result).toStrictEqual(withStructured);
          expect(replay.record).toEqual(completed);
        }
        expect((await store.claim(callInput('b'))).record.result).toStrictEqual(plain);
        expect((await store.get('s1', 'a'))?.updatedAt).toBe(T0 + 25);
      });

      it('measures a record without reading it: the bytes of its arguments, result and error JSON', async () => {
        expect(await store.recordBytes('s1', 'nope')).toBeUndefined();
        const claimed = await owner(callInput('m1'));
        const args = Buffer.byteLength(JSON.stringify({ path: '/tmp/m1' }));
        expect(await store.recordBytes('s1', 'm1')).toBe(args);
        const result = textResult('écrit');
        await store.complete('s1', 'm1', claimed.lease, result);
        expect(await store.recordBytes('s1', 'm1')).toBe(args + Buffer.byteLength(JSON.stringify(result)));
      });

      it('refuses another call under a used callId, never replaying it, and leaves the record as it was', async () => {
        const claimed = await owner(callInput('c1', { rawArgs: { path: '/a' } }));
        const startedRecord = await store.get('s1', 'c1');

        await expect(store.claim(callInput('c1', { rawArgs: { path: '/b' } }))).rejects.toThrow(
          CheckpointArgumentsMismatchError,
        );
        expect(await store.get('s1', 'c1')).toEqual(startedRecord);

        await store.complete('s1', 'c1', claimed.lease, textResult('done'));
        const completedRecord = await store.get('s1', 'c1');
        const mismatch = await rejection(store.claim(callInput('c1', { rawArgs: { path: '/b' } })));
        expect(mismatch).toBeInstanceOf(CheckpointArgumentsMismatchError);
        expect((mismatch as CheckpointArgumentsMismatchError).mismatched).toEqual(['arguments']);
        expect(mismatch.message).toContain('use a new callId');
        expect(await store.get('s1', 'c1')).toEqual(completedRecord);

        // Same arguments, but another tool, server or user: still not the same call.
        const other = await rejection(
          store.claim(
            callInput('c1', { rawArgs: { path: '/a' }, toolName: 'delete_file', serverId: 'fs2', userId: 'u2' }),
          ),
        );
        expect((other as CheckpointArgumentsMismatchError).mismatched).toEqual(['tool', 'server', 'user']);
        expect((await store.claim(callInput('c1', { rawArgs: { path: '/a' } }))).kind).toBe('replay');
      });

      it('answers "in progress or result unknown" for a started call, saying it may have run and how to resolve it', async () => {
        await owner(callInput('c1'));
        const before = await store.get('s1', 'c1');
        time += 5;
        const error = await rejection(store.claim(callInput('c1')));
        expect(error).toBeInstanceOf(CheckpointInProgressError);
        expect(error.message).toMatch(/in progress or its result is unknown/);
        expect(error.message).toMatch(/may already have run/);
        expect(error.message).toMatch(/History/);
        expect(await store.get('s1', 'c1')).toEqual(before);
      });

      it('gives exactly one owner among 1,000 concurrent claims of one call', async () => {
        const outcomes = await Promise.all(
          Array.from({ length: 1_000 }, async () => {
            await Promise.resolve();
            try {
              return (await store.claim(callInput('hot'))).kind;
            } catch (error) {
              return error instanceof CheckpointInProgressError ? 'in_progress' : String(error);
            }
          }),
        );
        expect(outcomes.filter((o) => o === 'owner')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'in_progress')).toHaveLength(999);
      });

      it('gives exactly one owner among 1,000 concurrent claims when the owner completes midway', async () => {
        // The first 500 race the owner; the other 500 start once it completed, while the first still answer.
        let completed!: () => void;
        const ownerDone = new Promise<void>((resolve) => (completed = resolve));
        const outcomes = await Promise.all(
          Array.from({ length: 1_000 }, async (_, i) => {
            if (i >= 500) await ownerDone;
            else await new Promise((resolve) => setImmediate(resolve));
            try {
              const claimed = await store.claim(callInput('hot'));
              if (claimed.kind === 'owner') {
                await store.complete('s1', 'hot', claimed.lease, textResult('once'));
                completed();
              }
              return claimed.kind;
            } catch (error) {
              return error instanceof CheckpointInProgressError ? 'in_progress' : String(error);
            }
          }),
        );
        expect(outcomes.filter((o) => o === 'owner')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'replay').length).toBeGreaterThanOrEqual(500);
        expect(outcomes.every((o) => o === 'owner' || o === 'replay' || o === 'in_progress')).toBe(true);
      });
    });

    describe('complete and recordFailure are lease-checked', () => {
      it('refuses a completer with a wrong lease and changes nothing', async () => {
        const claimed = await owner(callInput('c1'));
        const before = await store.get('s1', 'c1');
        time += 10;
        await expect(store.complete('s1', 'c1', 'not-the-lease', textResult('forged'))).rejects.toThrow(
          CheckpointLeaseLostError,
        );
        await expect(store.complete('s1', 'c1', `${claimed.lease}x`, textResult('forged'))).rejects.toThrow(
          CheckpointLeaseLostError,
        );
        expect(await store.get('s1', 'c1')).toEqual(before);
        // The rightful owner still can.
        expect((await store.complete('s1', 'c1', claimed.lease, textResult('real'))).result).toEqual(
          textResult('real'),
        );
      });

      it('refuses an old lease once the call completed, keeping the first result', async () => {
        const claimed = await owner(callInput('c1'));
        await store.complete('s1', 'c1', claimed.lease, textResult('first'));
        const before = await store.get('s1', 'c1');
        time += 10;
        const error = await rejection(store.complete('s1', 'c1', claimed.lease, textResult('second')));
        expect(error).toBeInstanceOf(CheckpointLeaseLostError);
        expect(error.message).toMatch(/already completed/);
        await expect(store.recordFailure('s1', 'c1', claimed.lease, { message: 'late' })).rejects.toThrow(
          CheckpointLeaseLostError,
        );
        expect(await store.get('s1', 'c1')).toEqual(before);
      });

      it('refuses the lease of an unknown call', async () => {
        await expect(store.complete('s1', 'nope', 'lease', textResult('x'))).rejects.toThrow(CheckpointLeaseLostError);
        expect(await store.get('s1', 'nope')).toBeUndefined();
      });

      it('recordFailure keeps the call started (the server may have acted) and notes the error and attempts', async () => {
        const claimed = await owner(callInput('c1'));
        time += 7;
        const afterOne = await store.recordFailure('s1', 'c1', claimed.lease, {
          code: 'timeout',
          message: 'no answer in 10 s',
        });
        expect(afterOne).toMatchObject({
          status: 'started',
          attempts: 1,
          updatedAt: T0 + 7,
          lastError: { code: 'timeout', message: 'no answer in 10 s', at: T0 + 7 },
        });
        expect(afterOne.result).toBeUndefined();

        time += 1;
        const afterTwo = await store.recordFailure('s1', 'c1', claimed.lease, { message: 'again' });
        expect(afterTwo.attempts).toBe(2);
        expect(afterTwo.lastError).toEqual({ message: 'again', at: T0 + 8 });
        expect(
          (await store.recordFailure('s1', 'c1', claimed.lease, { message: 'retried', attempts: 5 })).attempts,
        ).toBe(5);

        await expect(store.recordFailure('s1', 'c1', 'wrong', { message: 'x' })).rejects.toThrow(
          CheckpointLeaseLostError,
        );
        expect((await store.get('s1', 'c1'))?.lastError?.message).toBe('retried');
        await expect(store.claim(callInput('c1'))).rejects.toThrow(CheckpointInProgressError);
        // The owner still holds the lease and may complete after a failed attempt.
        expect((await store.complete('s1', 'c1', claimed.lease, textResult('ok'))).status).toBe('completed');
      });
    });

    describe('a failure the server proved did not run (notRun)', () => {
      it('files the call as failed with its coded error: nothing to resolve, the lease is spent, the callId too', async () => {
        const claimed = await owner(callInput('c1'));
        time += 3;
        const failed = await store.recordFailure('s1', 'c1', claimed.lease, {
          code: 'url_elicitation_required',
          message: 'open a link first',
          attempts: 1,
          notRun: true,
        });
        expect(failed).toMatchObject({
          status: 'failed',
          attempts: 1,
          lastError: { code: 'url_elicitation_required', message: 'open a link first', at: T0 + 3 },
        });
        expect(failed.resolvedBy).toBeUndefined();
        await expect(store.complete('s1', 'c1', claimed.lease, textResult('late'))).rejects.toThrow(
          CheckpointLeaseLostError,
        );
        await expect(store.claim(callInput('c1'))).rejects.toThrow(CheckpointFailedError);

        // The grouped write (the tool-call path) files it the same way.
        const second = await owner(callInput('c2'));
        await (subject.grouped ?? store).recordFailure('s1', 'c2', second.lease, {
          code: 'url_elicitation_required',
          message: 'open a link first',
          notRun: true,
        });
        expect((await store.get('s1', 'c2'))?.status).toBe('failed');
      });
    });

    describe('manual resolution', () => {
      it('resolves a started call as failed: the callId is spent and the old owner cannot complete', async () => {
        const claimed = await owner(callInput('c1'));
        time += 60_000;
        const resolved = await store.resolveManually('s1', 'c1', { status: 'failed', note: 'server shows nothing' });
        expect(resolved).toMatchObject({
          status: 'failed',
          resolvedBy: 'manual',
          resolvedAt: T0 + 60_000,
          updatedAt: T0 + 60_000,
          resolutionNote: 'server shows nothing',
        });
        expect(resolved.result).toBeUndefined();

        const error = await rejection(store.claim(callInput('c1')));
        expect(error).toBeInstanceOf(CheckpointFailedError);
        expect(error.message).toMatch(/new callId/);
        const lost = await rejection(store.complete('s1', 'c1', claimed.lease, textResult('late')));
        expect(lost).toBeInstanceOf(CheckpointLeaseLostError);
        expect(lost.message).toMatch(/resolved by hand/);
        expect((await store.get('s1', 'c1'))?.status).toBe('failed');
      });

      it('resolves a started call as completed: later claims replay the given result', async () => {
        const claimed = await owner(callInput('c1'));
        const result = textResult('seen on the server', { id: 7 });
        const resolved = await store.resolveManually('s1', 'c1', { status: 'completed', result });
        expect(resolved).toMatchObject({ status: 'completed', resolvedBy: 'manual', result });
        expect(resolved.resolutionNote).toBeUndefined();

        const replay = await store.claim(callInput('c1'));
        expect(replay.kind).toBe('replay');
        expect(replay.record.result).toStrictEqual(result);
        await expect(store.complete('s1', 'c1', claimed.lease, textResult('late'))).rejects.toThrow(
          CheckpointLeaseLostError,
        );
        expect((await store.get('s1', 'c1'))?.result).toStrictEqual(result);
      });

      it('refuses to resolve a completed or failed call, or one that does not exist', async () => {
        const a = await owner(callInput('a'));
        await store.complete('s1', 'a', a.lease, textResult('done'));
        const completed = await store.get('s1', 'a');
        const error = await rejection(store.resolveManually('s1', 'a', { status: 'failed' }));
        expect(error).toBeInstanceOf(CheckpointNotResolvableError);
        expect(error.message).toMatch(/already completed/);
        await expect(
          store.resolveManually('s1', 'a', { status: 'completed', result: textResult('other') }),
        ).rejects.toThrow(CheckpointNotResolvableError);
        expect(await store.get('s1', 'a')).toEqual(completed);

        await owner(callInput('b'));
        await store.resolveManually('s1', 'b', { status: 'failed' });
        await expect(
          store.resolveManually('s1', 'b', { status: 'completed', result: textResult('x') }),
        ).rejects.toThrow(CheckpointNotResolvableError);
        expect((await store.get('s1', 'b'))?.status).toBe('failed');

        await expect(store.resolveManually('s1', 'missing', { status: 'failed' })).rejects.toThrow(
          CheckpointNotFoundError,
        );
      });
    });

    describe('history', () => {
      /** 60 records: 3 sessions, 2 tools, all three statuses, several sharing a millisecond. */
      async function seed(): Promise<CheckpointRecord[]> {
        for (let i = 0; i < 60; i++) {
          if (i % 4 !== 0) time += 1; // every 4th shares the previous millisecond
          const claimed = await owner(
            callInput(`c${i}`, { sessionId: `s${i % 3}`, toolName: i % 2 ? 'read_file' : 'write_file' }),
          );
          if (i % 5 === 1) {
            time += 1;
            await store.complete(`s${i % 3}`, `c${i}`, claimed.lease, textResult(`r${i}`));
          } else if (i % 5 === 2) {
            await store.resolveManually(`s${i % 3}`, `c${i}`, { status: 'failed' });
          }
        }
        const all = await Promise.all(
          Array.from({ length: 60 }, async (_, i) => (await store.get(`s${i % 3}`, `c${i}`)) as CheckpointRecord),
        );
        const created = new Map(all.map((r, i) => [r, i]));
        // updatedAt desc, then creation order desc.
        return [...all].sort(
          (a, b) => b.updatedAt - a.updatedAt || (created.get(b) as number) - (created.get(a) as number),
        );
      }

      async function pages(
        query: Omit<HistoryQuery, 'cursor'>,
      ): Promise<{ records: CheckpointRecord[]; pageCount: number }> {
        const records: CheckpointRecord[] = [];
        let cursor: string | undefined;
        let pageCount = 0;
        do {
          const page = await store.history({ ...query, ...(cursor ? { cursor } : {}) });
          expect(page.records.length).toBeLessThanOrEqual(query.limit);
          records.push(...page.records);
          cursor = page.nextCursor;
          pageCount++;
        } while (cursor && pageCount < 1_000);
        return { records, pageCount };
      }

      const ids = (records: CheckpointRecord[]) => records.map((r) => `${r.sessionId}/${r.callId}`);

      it('pages through every record exactly once, newest activity first', async () => {
        const expected = await seed();
        for (const limit of [1, 7, 20, 60, 500]) {
          const { records, pageCount } = await pages({ limit });
          expect(ids(records)).toEqual(ids(expected));
          expect(new Set(ids(records)).size).toBe(60);
          expect(pageCount).toBe(Math.ceil(60 / limit));
        }
        expect((await store.history({ limit: 500 })).records).toEqual(expected);
      });

      it('filters by session, status, tool and time, and pages within the filter', async () => {
        const expected = await seed();
        const cases: [Omit<HistoryQuery, 'cursor' | 'limit'>, (r: CheckpointRecord) => boolean][] = [
          [{ sessionId: 's1' }, (r) => r.sessionId === 's1'],
          [{ status: 'started' }, (r) => r.status === 'started'],
          [{ status: 'completed' }, (r) => r.status === 'completed'],
          [{ status: 'failed' }, (r) => r.status === 'failed'],
          [{ toolName: 'read_file' }, (r) => r.toolName === 'read_file'],
          [
            { sessionId: 's2', status: 'started', toolName: 'write_file' },
            (r) => r.sessionId === 's2' && r.status === 'started' && r.toolName === 'write_file',
          ],
          [{ from: T0 + 10, to: T0 + 30 }, (r) => r.updatedAt >= T0 + 10 && r.updatedAt <= T0 + 30],
          [{ sessionId: 's0', from: T0 + 20 }, (r) => r.sessionId === 's0' && r.updatedAt >= T0 + 20],
        ];
        for (const [filter, keep] of cases) {
          const want = expected.filter(keep);
          expect(want.length).toBeGreaterThan(0);
          expect(ids((await pages({ ...filter, limit: 4 })).records)).toEqual(ids(want));
        }
        expect(await store.history({ sessionId: 'nobody', limit: 10 })).toEqual({ records: [] });
      });

      it('caps a page at 500 records and rejects a bad limit or cursor', async () => {
        for (let i = 0; i < 501; i++) await owner(callInput(`bulk${i}`));
        const page = await store.history({ limit: 10_000 });
        expect(page.records).toHaveLength(500);
        expect(page.nextCursor).toBeDefined();
        expect(
          (await store.history({ limit: 10_000, ...(page.nextCursor ? { cursor: page.nextCursor } : {}) })).records,
        ).toHaveLength(1);
        await expect(store.history({ limit: 0 })).rejects.toThrow(/limit/);
        await expect(store.history({ limit: 5, cursor: 'not a cursor' })).rejects.toThrow(/cursor/);
      });

      it('lists sessions with their record count, started count and last activity, most recent first', async () => {
        await owner(callInput('a', { sessionId: 'old' }));
        time += 10;
        const b = await owner(callInput('b', { sessionId: 'new' }));
        await owner(callInput('c', { sessionId: 'new' }));
        time += 10;
        await store.complete('new', 'b', b.lease, textResult('x'));
        expect(await store.listSessions()).toEqual([
          { sessionId: 'new', count: 2, started: 1, lastActivity: T0 + 20 },
          { sessionId: 'old', count: 1, started: 1, lastActivity: T0 },
        ]);
      });
    });

    describe('leases, durability, scale and secrets (the guarantees every store keeps)', () => {
      it('lets a lease expire with its owner: the duplicate learns the owner is gone, and the stale owner is fenced off', async () => {
        const claimed = await owner(callInput('c1'));
        time += LEASE_MS - 1;
        expect(await store.renew('s1', 'c1', claimed.lease)).toBe(true); // the owner's heartbeat while it lives
        time += LEASE_MS - 1;
        const alive = await rejection(store.claim(callInput('c1')));
        expect(alive).toBeInstanceOf(CheckpointInProgressError);
        expect((alive as CheckpointInProgressError).ownerGone).toBe(false);

        time += 2; // the owner died: no renewal, its lease passes its expiry
        const before = await store.get('s1', 'c1');
        const gone = await rejection(store.claim(callInput('c1')));
        expect(gone).toBeInstanceOf(CheckpointInProgressError);
        expect((gone as CheckpointInProgressError).ownerGone).toBe(true);
        expect(gone.message).toMatch(/owner stopped/);
        expect(await store.renew('s1', 'c1', claimed.lease)).toBe(false); // an expired lease is not revived

        // Fencing: the stale owner (paused, not dead) cannot complete or fail the call any more.
        const lost = await rejection(store.complete('s1', 'c1', claimed.lease, textResult('late')));
        expect(lost).toBeInstanceOf(CheckpointLeaseLostError);
        expect(lost.message).toMatch(/lease expired/);
        await expect(store.recordFailure('s1', 'c1', claimed.lease, { message: 'late' })).rejects.toThrow(
          CheckpointLeaseLostError,
        );
        expect(await store.get('s1', 'c1')).toEqual(before);
        expect(before).toMatchObject({ status: 'started' });
        expect(before?.result).toBeUndefined();
        // Never handed to a second owner (it may have run); a person resolves it.
        expect((await store.resolveManually('s1', 'c1', { status: 'failed', note: 'owner died' })).status).toBe(
          'failed',
        );
      });

      it('stores a claim and a completion before it answers: another connection sees them at once', async (context) => {
        if (!subject.reopen) return context.skip();
        const other = await subject.reopen();
        try {
          const claimed = await owner(callInput('c1'));
          expect((await other.store.get('s1', 'c1'))?.status).toBe('started');
          await expect(other.store.claim(callInput('c1'))).rejects.toThrow(CheckpointInProgressError);
          await store.complete('s1', 'c1', claimed.lease, textResult('durable'));
          const replay = await other.store.claim(callInput('c1'));
          expect(replay.kind).toBe('replay');
          expect(replay.record.result).toStrictEqual(textResult('durable'));
          if (subject.grouped) {
            const second = await subject.grouped.claim(callInput('c2'));
            if (second.kind !== 'owner') throw new Error('expected to own c2');
            await subject.grouped.complete('s1', 'c2', second.lease, textResult('grouped'));
            expect((await other.store.get('s1', 'c2'))?.result).toStrictEqual(textResult('grouped'));
          }
        } finally {
          await other.store.close();
          await other.close();
        }
      });

      it('gives exactly one owner among 1,000 concurrent claims through two connections', async (context) => {
        if (!subject.reopen) return context.skip();
        const other = await subject.reopen();
        try {
          const outcomes = await Promise.all(
            Array.from({ length: 1_000 }, async (_, i) => {
              try {
                return (await (i % 2 ? other.store : store).claim(callInput('hot'))).kind;
              } catch (error) {
                return error instanceof CheckpointInProgressError ? 'in_progress' : String(error);
              }
            }),
          );
          expect(outcomes.filter((o) => o === 'owner')).toHaveLength(1);
          expect(outcomes.filter((o) => o === 'in_progress')).toHaveLength(999);
        } finally {
          await other.store.close();
          await other.close();
        }
      });

      it(
        'pages History through 100,000 records exactly once, newest first, in bounded pages',
        { timeout: 120_000 },
        async () => {
          await subject.seedHistory('big', 100_000, T0);
          await owner(callInput('other', { sessionId: 'small' }));
          let cursor: string | undefined;
          let pagesRead = 0;
          let count = 0;
          let previous = Number.POSITIVE_INFINITY;
          const seen = new Set<string>();
          do {
            const page = await store.history({ sessionId: 'big', limit: 500, ...(cursor ? { cursor } : {}) });
            expect(page.records.length).toBeLessThanOrEqual(500);
            for (const record of page.records) {
              expect(record.updatedAt).toBeLessThanOrEqual(previous);
              previous = record.updatedAt;
              seen.add(record.callId);
              count++;
            }
            cursor = page.nextCursor;
            pagesRead++;
          } while (cursor);
          expect(count).toBe(100_000);
          expect(seen.size).toBe(100_000);
          expect(pagesRead).toBe(200);
          const newest = (await store.history({ sessionId: 'big', limit: 1 })).records[0];
          expect(newest?.updatedAt).toBe(T0 + 99_999);
          // Filters page within the 100k as well (every 10th seeded record is a tool error).
          const errors = await store.history({ sessionId: 'big', status: 'tool_error', limit: 500 });
          expect(errors.records).toHaveLength(500);
          expect(errors.records.every((r) => r.result?.isError === true)).toBe(true);
        },
      );

      it('keeps no secret at rest: arguments are stored redacted and only their hash stands for the originals', async () => {
        const secret = 'sk-live-7f3a9c1e5b2d4f6a8c0e';
        const raw = { path: '/tmp/report', apiKey: secret, headers: { authorization: `Bearer ${secret}` } };
        const prepared = checkpointArguments(raw, (value) => redactReporting(value, [secret]));
        const claimed = await owner({ ...callInput('c1'), ...prepared });
        await store.complete('s1', 'c1', claimed.lease, textResult('sent'));
        const second = await owner(callInput('c2'));
        await store.recordFailure('s1', 'c2', second.lease, {
          code: 'timeout',
          message: redactString(`token ${secret} timed out`, [secret]),
        });

        const stored = await subject.storedText();
        expect(stored).toContain('/tmp/report'); // the dump does hold the records
        expect(stored).toContain(REDACTED);
        expect(stored).not.toContain(secret);
        expect(stored).not.toContain(secret.slice(0, 16));
        // The same call replays; the arguments' hash (of the originals) keeps two secrets apart.
        expect((await store.claim({ ...callInput('c1'), ...prepared })).kind).toBe('replay');
        const other = checkpointArguments({ ...raw, apiKey: `${secret}x` }, (value) =>
          redactReporting(value, [`${secret}x`]),
        );
        await expect(store.claim({ ...callInput('c1'), ...other })).rejects.toThrow(CheckpointArgumentsMismatchError);
      });
    });
  });
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`threw a non-Error: ${String(error)}`);
  }
  throw new Error('expected the call to be refused');
}
