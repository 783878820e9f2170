/**
 * Group commit of the checkpoint store's `grouped` writes: concurrent claims and completions
 * share transactions (counted by the connection's group-commit statistics, not timed), and each
 * promise settles only once its write is committed — visible to another connection, and still
 * there after the writer is killed with SIGKILL.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openAppDatabase } from '../../electron/core/database.js';
import {
  CheckpointArgumentsMismatchError,
  CheckpointInProgressError,
  CheckpointLeaseLostError,
} from '../../electron/checkpoints/errors.js';
import { checkpointArguments, hashArguments } from '../../electron/checkpoints/hash.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import type { ClaimResult } from '../../electron/checkpoints/types.js';
import type { Database } from '../../electron/storage/database.js';
import { LATER_MS, groupCommitFor } from '../../electron/storage/groupCommit.js';
import { REDACTED, redactReporting } from '../../electron/secrets/redaction.js';
import { Tracer } from '../../electron/tracing/tracer.js';
import { BATCH_CHANGES } from '../../electron/tracing/traceWriter.js';
import { childInput, childResult } from './childProtocol.js';
import { waitFor } from '../helpers/fixtures.js';
import { callInput, textResult } from './conformance.js';
import { tempDir } from './tempDir.js';

const PROJECT_ROOT = new URL('../..', import.meta.url).pathname;
const GROUPED_CHILD = new URL('./groupedChild.ts', import.meta.url).pathname;

let scratch: ReturnType<typeof tempDir>;
let file: string;
let db: Database;
let store: SqliteCheckpointStore;
/** A second connection to the same file: it sees only what was committed. */
let other: BetterSqlite3.Database;

const committedStatus = (callId: string, sessionId = 's1'): string | undefined =>
  (
    other.prepare('SELECT status FROM checkpoints WHERE session_id = ? AND call_id = ?').get(sessionId, callId) as
      { status: string } | undefined
  )?.status;

function owned(claim: ClaimResult): Extract<ClaimResult, { kind: 'owner' }> {
  if (claim.kind !== 'owner') throw new Error(`expected to own ${claim.record.callId}`);
  return claim;
}

beforeEach(() => {
  scratch = tempDir('mh-group-');
  file = join(scratch.dir, 'harness.db');
  db = openAppDatabase(file, { busyTimeoutMs: 50 });
  store = new SqliteCheckpointStore(db);
  other = new BetterSqlite3(file);
});
afterEach(() => {
  other.close();
  if (db.open) db.close();
  scratch.cleanup();
});

describe('grouped checkpoint writes', () => {
  it('commit the claims of concurrent calls in one transaction, each resolved only once it is committed', async () => {
    const before = store.groupCommitStats;
    const seenAtResolution: Array<string | undefined> = [];
    const claims = Array.from({ length: 50 }, (_, i) =>
      store.grouped.claim(callInput(`c${i}`)).then((claim) => {
        // The caller goes on to the side effect from here: the claim must already be committed.
        seenAtResolution.push(committedStatus(`c${i}`));
        return claim;
      }),
    );
    expect(committedStatus('c0')).toBeUndefined(); // queued, not yet written
    const results = await Promise.all(claims);

    expect(results.map((r) => r.kind)).toEqual(Array(50).fill('owner'));
    expect(seenAtResolution).toEqual(Array(50).fill('started'));
    const after = store.groupCommitStats;
    expect(after.transactions - before.transactions).toBe(1);
    expect(after.writes - before.writes).toBe(50);

    // The completions of those calls share one transaction too, and are committed when they resolve.
    const completedAtResolution: Array<string | undefined> = [];
    await Promise.all(
      results.map((claim, i) =>
        store.grouped
          .complete('s1', `c${i}`, owned(claim).lease, textResult(`r${i}`))
          .then(() => completedAtResolution.push(committedStatus(`c${i}`))),
      ),
    );
    expect(completedAtResolution).toEqual(Array(50).fill('completed'));
    expect(store.groupCommitStats.transactions - after.transactions).toBe(1);
    expect(store.get('s1', 'c7')?.result).toEqual(textResult('r7'));
  });

  it('give each write of a batch its own outcome: a refused one does not sink the others', async () => {
    const done = owned(store.claim(callInput('done')));
    store.complete('s1', 'done', done.lease, textResult('kept'));
    const running = owned(store.claim(callInput('running')));
    const before = store.groupCommitStats.transactions;

    const outcomes = await Promise.allSettled([
      store.grouped.claim(callInput('fresh')),
      store.grouped.claim(callInput('done', { rawArgs: { path: '/elsewhere' } })),
      store.grouped.claim(callInput('running')),
      store.grouped.claim(callInput('done')),
      store.grouped.complete('s1', 'running', 'not-the-lease', textResult('forged')),
      store.grouped.recordFailure('s1', 'running', running.lease, { code: 'timeout', message: 'no answer' }),
      // Invalid before it is queued: rejected, never written.
      store.grouped.complete('s1', 'running', running.lease, { content: 'nope' } as never),
    ]);

    expect(store.groupCommitStats.transactions - before).toBe(1);
    const [fresh, mismatch, inProgress, replay, forged, failure, invalid] = outcomes;
    expect(fresh).toMatchObject({ status: 'fulfilled', value: { kind: 'owner' } });
    expect(mismatch).toMatchObject({
      status: 'rejected',
      reason: expect.any(CheckpointArgumentsMismatchError) as unknown,
    });
    expect(inProgress).toMatchObject({ status: 'rejected', reason: expect.any(CheckpointInProgressError) as unknown });
    expect(replay).toMatchObject({
      status: 'fulfilled',
      value: { kind: 'replay', record: { result: textResult('kept') } },
    });
    expect(forged).toMatchObject({ status: 'rejected', reason: expect.any(CheckpointLeaseLostError) as unknown });
    expect(failure).toMatchObject({ status: 'fulfilled' });
    expect(invalid).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringMatching(/cannot be saved for replay/) as unknown },
    });
    expect(committedStatus('fresh')).toBe('started');
    expect(store.get('s1', 'running')).toMatchObject({
      status: 'started',
      attempts: 1,
      lastError: { code: 'timeout', message: 'no answer' },
    });
  });

  it('fail every write of a batch whose transaction fails, storing none of them', async () => {
    other.exec('BEGIN IMMEDIATE'); // another connection holds the write lock past the busy timeout
    const outcomes = await Promise.allSettled([
      store.grouped.claim(callInput('a')),
      store.grouped.claim(callInput('b')),
    ]);
    other.exec('ROLLBACK');
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : undefined))).toEqual([
      'SQLITE_BUSY',
      'SQLITE_BUSY',
    ]);
    expect(committedStatus('a')).toBeUndefined();
    // Nothing was taken: the same calls can be claimed once the lock is free.
    expect((await store.grouped.claim(callInput('a'))).kind).toBe('owner');
  });

  it('leave the trace events of those calls to one transaction of their own, shortly after', async () => {
    // Only the trace writes' timer is faked: it must not fire before the claims' commit (on a
    // loaded machine a turn of the event loop can take longer than its delay).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const tracer = new Tracer(db);
      const before = store.groupCommitStats;
      const traces = Array.from({ length: 10 }, (_, i) => {
        const trace = tracer.start({
          sessionId: 's1',
          callId: `c${i}`,
          userId: 'u1',
          toolName: 'write_file',
          serverId: 'fs',
        });
        trace.event('decision', { outcome: 'allow' });
        return trace;
      });
      await Promise.all(traces.map((trace, i) => store.grouped.claim(callInput(`c${i}`, { traceId: trace.traceId }))));
      // The claims' commit carried the claims alone: nothing the callers do not wait for lengthened it.
      const claimed = store.groupCommitStats;
      expect(claimed.transactions - before.transactions).toBe(1);
      expect(claimed.writes - before.writes).toBe(10);
      const storedTraces = () => (other.prepare('SELECT COUNT(*) AS n FROM traces').get() as { n: number }).n;
      expect(storedTraces()).toBe(0);

      vi.advanceTimersByTime(LATER_MS);
      const after = store.groupCommitStats;
      expect(after.transactions - claimed.transactions).toBe(1); // the ten traces' starts and events, together:
      expect(after.writes - claimed.writes).toBe(1); // the tracer's batch is one write of the group
      expect(storedTraces()).toBe(10);
    } finally {
      vi.useRealTimers();
    }
  });

  it('write many short calls’ traces in small commits, one per turn, each trace whole', async () => {
    // A single commit of everything queued held up every answer waiting in the event loop (the p99).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const tracer = new Tracer(db);
      const before = store.groupCommitStats;
      // A write is closed at the first finish that brings it to BATCH_CHANGES changes (7 per call): two whole writes and a short one.
      const perWrite = Math.ceil(BATCH_CHANGES / 7);
      const calls = 2 * perWrite + 5;
      for (let i = 0; i < calls; i++) {
        const trace = tracer.start({
          sessionId: 's1',
          callId: `short${i}`,
          userId: 'u1',
          toolName: 'echo',
          serverId: 'fx',
        });
        trace.event('decision', { outcome: 'allow' });
        trace.event('claim', { outcome: 'owner' });
        trace.event('attempt_started', { attempt: 1 });
        trace.event('attempt_finished', { attempt: 1, outcome: 'ok', durationMs: 1 });
        trace.event('completed', { isError: false, contentBlocks: 1 });
        trace.finish('ok');
      }
      const stored = () =>
        (other.prepare(`SELECT COUNT(*) AS n FROM traces WHERE status = 'ok'`).get() as { n: number }).n;
      vi.advanceTimersByTime(LATER_MS);
      expect(store.groupCommitStats.transactions - before.transactions).toBe(1);
      expect(stored()).toBe(perWrite); // the first write alone, its traces already finished (inserted once)
      await new Promise((resolve) => setImmediate(resolve));
      expect(store.groupCommitStats.transactions - before.transactions).toBe(2);
      await new Promise((resolve) => setImmediate(resolve));
      expect(store.groupCommitStats.transactions - before.transactions).toBe(3);
      expect(stored()).toBe(calls);
      // Each trace written whole carries its five events in its own row (tracing/schema.ts, TRACES_V6): no event rows.
      expect((other.prepare('SELECT COUNT(*) AS n FROM trace_events').get() as { n: number }).n).toBe(0);
      expect((other.prepare('SELECT SUM(json_array_length(events)) AS n FROM traces').get() as { n: number }).n).toBe(
        5 * calls,
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('are committed by close(), not dropped', async () => {
    const tracer = new Tracer(db);
    const trace = tracer.start({ sessionId: 's1', callId: 'late', userId: 'u1', toolName: 't', serverId: 'x' });
    const claim = store.grouped.claim(callInput('late', { traceId: trace.traceId }));
    expect(groupCommitFor(db).pending).toBe(2);
    db.close();
    expect((await claim).kind).toBe('owner');
    expect(committedStatus('late')).toBe('started');
    expect(
      (other.prepare('SELECT COUNT(*) AS n FROM traces WHERE trace_id = ?').get(trace.traceId) as { n: number }).n,
    ).toBe(1);
  });
});

describe('checkpointArguments', () => {
  const secrets = ['sk-live-0123456789'];
  const redactor = (value: unknown) => redactReporting(value, secrets);

  it('hashes and stores plain arguments from one canonical JSON: the hash is hashArguments’', () => {
    const args = { path: '/tmp/a', nested: { b: 2, a: [1, 'x'] }, count: 3 };
    const prepared = checkpointArguments(args, redactor);
    expect(prepared.argsHash).toBe(hashArguments(args));
    expect(prepared.args).toEqual(args);
    expect(JSON.parse(prepared.argsJson)).toEqual(args);
    expect(prepared.argsJson).toBe('{"count":3,"nested":{"a":[1,"x"],"b":2},"path":"/tmp/a"}');
  });

  it('stores redacted arguments but hashes the ones sent', () => {
    const args = { apiKey: 'k-123456', text: 'call with sk-live-0123456789 inside' };
    const prepared = checkpointArguments(args, redactor);
    expect(prepared.argsHash).toBe(hashArguments(args));
    expect(prepared.args).toEqual({ apiKey: REDACTED, text: `call with ${REDACTED} inside` });
    expect(prepared.argsJson).not.toContain('k-123456');
    expect(prepared.argsJson).not.toContain('sk-live');
    // Two calls differing only in a secret keep different hashes.
    expect(checkpointArguments({ ...args, apiKey: 'k-654321' }, redactor).argsHash).not.toBe(prepared.argsHash);
  });

  it('keeps refusing what hashArguments refuses', () => {
    expect(() => checkpointArguments(undefined, redactor)).toThrow(TypeError);
    expect(() => checkpointArguments({ n: Number.NaN }, redactor)).toThrow();
  });

  it('round-trips through a grouped claim: the record carries the stored form', async () => {
    const prepared = checkpointArguments({ token: 'abcdef-secret', q: 'x' }, redactor);
    const claim = await store.grouped.claim({ ...callInput('args'), ...prepared });
    expect(claim.record.args).toEqual({ token: REDACTED, q: 'x' });
    expect(store.get('s1', 'args')?.args).toEqual({ token: REDACTED, q: 'x' });
    expect(store.get('s1', 'args')?.argsHash).toBe(hashArguments({ token: 'abcdef-secret', q: 'x' }));
  });
});

describe('a writer killed with SIGKILL while calls are in flight', () => {
  const logLines = (log: string): string[] => readFileSync(log, 'utf8').split('\n').filter(Boolean);

  /** Starts the child and kills it once its log has grown by `lines` more lines (work done, calls in flight). */
  function runAndKill(log: string, lines: number): Promise<void> {
    const target = logLines(log).length + lines;
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', GROUPED_CHILD, file, log, '8'], {
        cwd: PROJECT_ROOT,
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('message', (message: { type: string; message?: string }) => {
        if (message.type === 'error') reject(new Error(`child failed: ${message.message}`));
        if (message.type === 'ready') {
          void waitFor(() => logLines(log).length >= target, 60_000, 1).then(
            () => child.kill('SIGKILL'),
            (error: unknown) => {
              child.kill('SIGKILL');
              reject(error as Error);
            },
          );
        }
      });
      child.on('error', reject);
      child.on('close', (code, signal) =>
        signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited (${code}) before the kill: ${stderr}`)),
      );
    });
  }

  it(
    'finds every claim whose promise had resolved, and every result whose promise had resolved — 10 kills',
    { timeout: 180_000 },
    async () => {
      db.close(); // the children write; this test only reads
      const log = join(scratch.dir, 'grouped.log');
      writeFileSync(log, '');
      for (const lines of [1, 2, 3, 5, 8, 13, 21, 34, 55, 89]) {
        await runAndKill(log, lines);
        const check = new BetterSqlite3(file, { readonly: true });
        try {
          const status = check.prepare<[string], { status: string }>(
            `SELECT status FROM checkpoints WHERE session_id = 'grouped' AND call_id = ?`,
          );
          for (const line of logLines(log)) {
            const [what, callId] = line.split(' ') as ['owner' | 'completed', string];
            // A claim that resolved is there (maybe completed since); a completion that resolved is there.
            expect(what === 'owner' ? ['started', 'completed'] : ['completed'], line).toContain(
              status.get(callId)?.status,
            );
          }
        } finally {
          check.close();
        }
      }
      const reopened = openAppDatabase(file);
      const verify = new SqliteCheckpointStore(reopened);
      const completed = logLines(log).filter((l) => l.startsWith('completed '));
      expect(completed.length).toBeGreaterThan(20);
      const sample = completed[0]!.slice('completed '.length);
      const replay = verify.claim(childInput('grouped', sample, 'verifier'));
      expect(replay.kind).toBe('replay');
      expect(replay.record.result).toStrictEqual(childResult(sample));
      reopened.close();
    },
  );
});
