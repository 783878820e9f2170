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
import { hashArguments } from '../../electron/checkpoints/hash.js';
import type {
  CheckpointRecord,
  CheckpointResult,
  CheckpointStore,
  ClaimInput,
  HistoryQuery,
} from '../../electron/checkpoints/types.js';
import type { Clock } from '../../electron/storage/clock.js';

export interface ConformanceSubject {
  store: CheckpointStore;
  close(): void;
}

/** Builds a fresh, empty store that reads time from `clock`. */
export type CheckpointStoreFactory = (clock: Clock) => ConformanceSubject | Promise<ConformanceSubject>;

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
    let store: CheckpointStore;
    let time: number;
    const clock: Clock = () => time;

    beforeEach(async () => {
      time = T0;
      subject = await factory(clock);
      store = subject.store;
    });
    afterEach(() => subject.close());

    const owner = (input: ClaimInput) => {
      const claimed = store.claim(input);
      if (claimed.kind !== 'owner') throw new Error(`expected to own ${input.callId}, got ${claimed.kind}`);
      return claimed;
    };

    describe('claim', () => {
      it('makes the first caller the owner with a random lease and a started record', () => {
        const input = callInput('c1');
        const first = owner(input);
        const second = owner(callInput('c2'));

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
        expect(store.get('s1', 'c1')).toEqual(first.record);
        expect(JSON.stringify(store.get('s1', 'c1'))).not.toContain(first.lease);
      });

      it('keys records by session and callId: the same callId in another session is another call', () => {
        owner(callInput('c1'));
        expect(store.claim(callInput('c1', { sessionId: 's2' })).kind).toBe('owner');
      });

      it('replays a completed call with the identical result, as often as asked, without changing it', () => {
        const withStructured = textResult('written', { bytes: 12, nested: { ok: true } });
        const plain = textResult('plain');
        const a = owner(callInput('a'));
        const b = owner(callInput('b'));
        time += 25;
        const completed = store.complete('s1', 'a', a.lease, withStructured);
        store.complete('s1', 'b', b.lease, plain);
        expect(completed).toMatchObject({
          status: 'completed',
          result: withStructured,
          createdAt: T0,
          updatedAt: T0 + 25,
        });

        time += 1_000;
        for (let i = 0; i < 2; i++) {
          const replay = store.claim(callInput('a'));
          expect(replay.kind).toBe('replay');
          expect(replay.record.result).toStrictEqual(withStructured);
          expect(replay.record).toEqual(completed);
        }
        expect(store.claim(callInput('b')).record.result).toStrictEqual(plain);
        expect(store.get('s1', 'a')?.updatedAt).toBe(T0 + 25);
      });

      it('refuses another call under a used callId, never replaying it, and leaves the record as it was', () => {
        const claimed = owner(callInput('c1', { rawArgs: { path: '/a' } }));
        const startedRecord = store.get('s1', 'c1');

        expect(() => store.claim(callInput('c1', { rawArgs: { path: '/b' } }))).toThrow(
          CheckpointArgumentsMismatchError,
        );
        expect(store.get('s1', 'c1')).toEqual(startedRecord);

        store.complete('s1', 'c1', claimed.lease, textResult('done'));
        const completedRecord = store.get('s1', 'c1');
        const mismatch = catchError(() => store.claim(callInput('c1', { rawArgs: { path: '/b' } })));
        expect(mismatch).toBeInstanceOf(CheckpointArgumentsMismatchError);
        expect((mismatch as CheckpointArgumentsMismatchError).mismatched).toEqual(['arguments']);
        expect(mismatch.message).toContain('use a new callId');
        expect(store.get('s1', 'c1')).toEqual(completedRecord);

        // Same arguments, but another tool, server or user: still not the same call.
        const other = catchError(() =>
          store.claim(
            callInput('c1', { rawArgs: { path: '/a' }, toolName: 'delete_file', serverId: 'fs2', userId: 'u2' }),
          ),
        );
        expect((other as CheckpointArgumentsMismatchError).mismatched).toEqual(['tool', 'server', 'user']);
        expect(store.claim(callInput('c1', { rawArgs: { path: '/a' } })).kind).toBe('replay');
      });

      it('answers "in progress or result unknown" for a started call, saying it may have run and how to resolve it', () => {
        owner(callInput('c1'));
        const before = store.get('s1', 'c1');
        time += 5;
        const error = catchError(() => store.claim(callInput('c1')));
        expect(error).toBeInstanceOf(CheckpointInProgressError);
        expect(error.message).toMatch(/in progress or its result is unknown/);
        expect(error.message).toMatch(/may already have run/);
        expect(error.message).toMatch(/History/);
        expect(store.get('s1', 'c1')).toEqual(before);
      });

      it('gives exactly one owner among 1,000 concurrent claims of one call', async () => {
        const outcomes = await Promise.all(
          Array.from({ length: 1_000 }, async () => {
            await Promise.resolve();
            try {
              return store.claim(callInput('hot')).kind;
            } catch (error) {
              return error instanceof CheckpointInProgressError ? 'in_progress' : String(error);
            }
          }),
        );
        expect(outcomes.filter((o) => o === 'owner')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'in_progress')).toHaveLength(999);
      });

      it('gives exactly one owner among 1,000 concurrent claims when the owner completes midway', async () => {
        let lease: string | undefined;
        const outcomes = await Promise.all(
          Array.from({ length: 1_000 }, async (_, i) => {
            await new Promise((resolve) => setImmediate(resolve));
            if (i === 500 && lease) store.complete('s1', 'hot', lease, textResult('once'));
            try {
              const claimed = store.claim(callInput('hot'));
              if (claimed.kind === 'owner') lease = claimed.lease;
              return claimed.kind;
            } catch (error) {
              return error instanceof CheckpointInProgressError ? 'in_progress' : String(error);
            }
          }),
        );
        expect(outcomes.filter((o) => o === 'owner')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'replay').length).toBeGreaterThan(0);
        expect(outcomes.every((o) => o === 'owner' || o === 'replay' || o === 'in_progress')).toBe(true);
      });
    });

    describe('complete and recordFailure are lease-checked', () => {
      it('refuses a completer with a wrong lease and changes nothing', () => {
        const claimed = owner(callInput('c1'));
        const before = store.get('s1', 'c1');
        time += 10;
        expect(() => store.complete('s1', 'c1', 'not-the-lease', textResult('forged'))).toThrow(
          CheckpointLeaseLostError,
        );
        expect(() => store.complete('s1', 'c1', `${claimed.lease}x`, textResult('forged'))).toThrow(
          CheckpointLeaseLostError,
        );
        expect(store.get('s1', 'c1')).toEqual(before);
        // The rightful owner still can.
        expect(store.complete('s1', 'c1', claimed.lease, textResult('real')).result).toEqual(textResult('real'));
      });

      it('refuses an old lease once the call completed, keeping the first result', () => {
        const claimed = owner(callInput('c1'));
        store.complete('s1', 'c1', claimed.lease, textResult('first'));
        const before = store.get('s1', 'c1');
        time += 10;
        const error = catchError(() => store.complete('s1', 'c1', claimed.lease, textResult('second')));
        expect(error).toBeInstanceOf(CheckpointLeaseLostError);
        expect(error.message).toMatch(/already completed/);
        expect(() => store.recordFailure('s1', 'c1', claimed.lease, { message: 'late' })).toThrow(
          CheckpointLeaseLostError,
        );
        expect(store.get('s1', 'c1')).toEqual(before);
      });

      it('refuses the lease of an unknown call', () => {
        expect(() => store.complete('s1', 'nope', 'lease', textResult('x'))).toThrow(CheckpointLeaseLostError);
        expect(store.get('s1', 'nope')).toBeUndefined();
      });

      it('recordFailure keeps the call started (the server may have acted) and notes the error and attempts', () => {
        const claimed = owner(callInput('c1'));
        time += 7;
        const afterOne = store.recordFailure('s1', 'c1', claimed.lease, {
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
        const afterTwo = store.recordFailure('s1', 'c1', claimed.lease, { message: 'again' });
        expect(afterTwo.attempts).toBe(2);
        expect(afterTwo.lastError).toEqual({ message: 'again', at: T0 + 8 });
        expect(store.recordFailure('s1', 'c1', claimed.lease, { message: 'retried', attempts: 5 }).attempts).toBe(5);

        expect(() => store.recordFailure('s1', 'c1', 'wrong', { message: 'x' })).toThrow(CheckpointLeaseLostError);
        expect(store.get('s1', 'c1')?.lastError?.message).toBe('retried');
        expect(() => store.claim(callInput('c1'))).toThrow(CheckpointInProgressError);
        // The owner still holds the lease and may complete after a failed attempt.
        expect(store.complete('s1', 'c1', claimed.lease, textResult('ok')).status).toBe('completed');
      });
    });

    describe('a failure the server proved did not run (notRun)', () => {
      it('files the call as failed with its coded error: nothing to resolve, the lease is spent, the callId too', async () => {
        const claimed = owner(callInput('c1'));
        time += 3;
        const failed = store.recordFailure('s1', 'c1', claimed.lease, {
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
        expect(() => store.complete('s1', 'c1', claimed.lease, textResult('late'))).toThrow(CheckpointLeaseLostError);
        expect(() => store.claim(callInput('c1'))).toThrow(CheckpointFailedError);

        // The grouped write (the tool-call path) files it the same way.
        const second = owner(callInput('c2'));
        await store.grouped.recordFailure('s1', 'c2', second.lease, {
          code: 'url_elicitation_required',
          message: 'open a link first',
          notRun: true,
        });
        expect(store.get('s1', 'c2')?.status).toBe('failed');
      });
    });

    describe('manual resolution', () => {
      it('resolves a started call as failed: the callId is spent and the old owner cannot complete', () => {
        const claimed = owner(callInput('c1'));
        time += 60_000;
        const resolved = store.resolveManually('s1', 'c1', { status: 'failed', note: 'server shows nothing' });
        expect(resolved).toMatchObject({
          status: 'failed',
          resolvedBy: 'manual',
          resolvedAt: T0 + 60_000,
          updatedAt: T0 + 60_000,
          resolutionNote: 'server shows nothing',
        });
        expect(resolved.result).toBeUndefined();

        const error = catchError(() => store.claim(callInput('c1')));
        expect(error).toBeInstanceOf(CheckpointFailedError);
        expect(error.message).toMatch(/new callId/);
        const lost = catchError(() => store.complete('s1', 'c1', claimed.lease, textResult('late')));
        expect(lost).toBeInstanceOf(CheckpointLeaseLostError);
        expect(lost.message).toMatch(/resolved by hand/);
        expect(store.get('s1', 'c1')?.status).toBe('failed');
      });

      it('resolves a started call as completed: later claims replay the given result', () => {
        const claimed = owner(callInput('c1'));
        const result = textResult('seen on the server', { id: 7 });
        const resolved = store.resolveManually('s1', 'c1', { status: 'completed', result });
        expect(resolved).toMatchObject({ status: 'completed', resolvedBy: 'manual', result });
        expect(resolved.resolutionNote).toBeUndefined();

        const replay = store.claim(callInput('c1'));
        expect(replay.kind).toBe('replay');
        expect(replay.record.result).toStrictEqual(result);
        expect(() => store.complete('s1', 'c1', claimed.lease, textResult('late'))).toThrow(CheckpointLeaseLostError);
        expect(store.get('s1', 'c1')?.result).toStrictEqual(result);
      });

      it('refuses to resolve a completed or failed call, or one that does not exist', () => {
        const a = owner(callInput('a'));
        store.complete('s1', 'a', a.lease, textResult('done'));
        const completed = store.get('s1', 'a');
        const error = catchError(() => store.resolveManually('s1', 'a', { status: 'failed' }));
        expect(error).toBeInstanceOf(CheckpointNotResolvableError);
        expect(error.message).toMatch(/already completed/);
        expect(() => store.resolveManually('s1', 'a', { status: 'completed', result: textResult('other') })).toThrow(
          CheckpointNotResolvableError,
        );
        expect(store.get('s1', 'a')).toEqual(completed);

        owner(callInput('b'));
        store.resolveManually('s1', 'b', { status: 'failed' });
        expect(() => store.resolveManually('s1', 'b', { status: 'completed', result: textResult('x') })).toThrow(
          CheckpointNotResolvableError,
        );
        expect(store.get('s1', 'b')?.status).toBe('failed');

        expect(() => store.resolveManually('s1', 'missing', { status: 'failed' })).toThrow(CheckpointNotFoundError);
      });
    });

    describe('history', () => {
      /** 60 records: 3 sessions, 2 tools, all three statuses, several sharing a millisecond. */
      function seed(): CheckpointRecord[] {
        for (let i = 0; i < 60; i++) {
          if (i % 4 !== 0) time += 1; // every 4th shares the previous millisecond
          const claimed = owner(
            callInput(`c${i}`, { sessionId: `s${i % 3}`, toolName: i % 2 ? 'read_file' : 'write_file' }),
          );
          if (i % 5 === 1) {
            time += 1;
            store.complete(`s${i % 3}`, `c${i}`, claimed.lease, textResult(`r${i}`));
          } else if (i % 5 === 2) {
            store.resolveManually(`s${i % 3}`, `c${i}`, { status: 'failed' });
          }
        }
        const all = Array.from({ length: 60 }, (_, i) => store.get(`s${i % 3}`, `c${i}`) as CheckpointRecord);
        const created = new Map(all.map((r, i) => [r, i]));
        // updatedAt desc, then creation order desc.
        return [...all].sort(
          (a, b) => b.updatedAt - a.updatedAt || (created.get(b) as number) - (created.get(a) as number),
        );
      }

      function pages(query: Omit<HistoryQuery, 'cursor'>): { records: CheckpointRecord[]; pageCount: number } {
        const records: CheckpointRecord[] = [];
        let cursor: string | undefined;
        let pageCount = 0;
        do {
          const page = store.history({ ...query, ...(cursor ? { cursor } : {}) });
          expect(page.records.length).toBeLessThanOrEqual(query.limit);
          records.push(...page.records);
          cursor = page.nextCursor;
          pageCount++;
        } while (cursor && pageCount < 1_000);
        return { records, pageCount };
      }

      const ids = (records: CheckpointRecord[]) => records.map((r) => `${r.sessionId}/${r.callId}`);

      it('pages through every record exactly once, newest activity first', () => {
        const expected = seed();
        for (const limit of [1, 7, 20, 60, 500]) {
          const { records, pageCount } = pages({ limit });
          expect(ids(records)).toEqual(ids(expected));
          expect(new Set(ids(records)).size).toBe(60);
          expect(pageCount).toBe(Math.ceil(60 / limit));
        }
        expect(store.history({ limit: 500 }).records).toEqual(expected);
      });

      it('filters by session, status, tool and time, and pages within the filter', () => {
        const expected = seed();
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
          expect(ids(pages({ ...filter, limit: 4 }).records)).toEqual(ids(want));
        }
        expect(store.history({ sessionId: 'nobody', limit: 10 })).toEqual({ records: [] });
      });

      it('caps a page at 500 records and rejects a bad limit or cursor', () => {
        for (let i = 0; i < 501; i++) owner(callInput(`bulk${i}`));
        const page = store.history({ limit: 10_000 });
        expect(page.records).toHaveLength(500);
        expect(page.nextCursor).toBeDefined();
        expect(
          store.history({ limit: 10_000, ...(page.nextCursor ? { cursor: page.nextCursor } : {}) }).records,
        ).toHaveLength(1);
        expect(() => store.history({ limit: 0 })).toThrow(/limit/);
        expect(() => store.history({ limit: 5, cursor: 'not a cursor' })).toThrow(/cursor/);
      });

      it('lists sessions with their record count, started count and last activity, most recent first', () => {
        owner(callInput('a', { sessionId: 'old' }));
        time += 10;
        const b = owner(callInput('b', { sessionId: 'new' }));
        owner(callInput('c', { sessionId: 'new' }));
        time += 10;
        store.complete('new', 'b', b.lease, textResult('x'));
        expect(store.listSessions()).toEqual([
          { sessionId: 'new', count: 2, started: 1, lastActivity: T0 + 20 },
          { sessionId: 'old', count: 1, started: 1, lastActivity: T0 },
        ]);
      });
    });
  });
}

function catchError(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`threw a non-Error: ${String(error)}`);
  }
  throw new Error('expected the call to throw');
}
