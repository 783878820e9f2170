import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../electron/storage/database.js';
import { openAppDatabase } from '../../electron/core/database.js';
import { groupCommitFor } from '../../electron/storage/groupCommit.js';
import { TraceClosedError, TraceEventInvalidError, TraceNotFoundError } from '../../electron/tracing/errors.js';
import type { TraceNotification, TraceSummary } from '../../shared/traces.js';
import {
  TraceDetailSchema,
  TraceEventDataSchemas,
  TraceExportSchema,
  TraceNotificationSchema,
} from '../../shared/traces.js';
import { REDACTED } from '../../electron/secrets/redaction.js';
import type { TraceQuery } from '../../electron/tracing/traceReader.js';
import type { TraceStartInput } from '../../electron/tracing/tracer.js';
import { Tracer } from '../../electron/tracing/tracer.js';
import { SecretRedactor } from '../../electron/secrets/secretRedactor.js';
import { tempDir } from '../checkpoints/tempDir.js';

const T0 = 1_700_000_000_000;
let time: number;
let db: Database;
let tracer: Tracer;

const call = (overrides: Partial<TraceStartInput> = {}): TraceStartInput => ({
  sessionId: 's1',
  callId: 'c1',
  userId: 'u1',
  toolName: 'search',
  serverId: 'web',
  ...overrides,
});

beforeEach(() => {
  time = T0;
  db = openAppDatabase(':memory:');
  tracer = new Tracer(db, { clock: () => time });
});
afterEach(() => {
  tracer.flush();
  db.close();
});

describe('recording', () => {
  it('stores events in order with timestamps, and measures attempt, approval and trace durations', () => {
    const trace = tracer.start(call());
    expect(tracer.getTrace(trace.traceId)?.trace).toEqual({
      ...call(),
      traceId: trace.traceId,
      status: 'running',
      startedAt: T0,
    });

    trace.event('decision', { outcome: 'ask', ruleId: 'writes-need-approval' });
    time += 2;
    trace.event('approval_requested', { approvalId: 'a1' });
    time += 1_500;
    trace.event('approval_answered', { approved: true, answeredBy: 'u1' });
    trace.event('claim', { outcome: 'owner' });
    time += 1;
    trace.event('attempt_started', { attempt: 1 });
    time += 40;
    trace.event('attempt_finished', {
      attempt: 1,
      outcome: 'error',
      error: { code: 'timeout', message: 'no answer' },
      recoverable: true,
    });
    trace.event('retry_scheduled', { nextAttempt: 2, delayMs: 200, reason: 'timeout' });
    time += 200;
    trace.event('attempt_started', { attempt: 2 });
    time += 13;
    trace.event('attempt_finished', { attempt: 2, outcome: 'ok', durationMs: 12.6 });
    trace.event('completed', { isError: false, contentBlocks: 1 });
    time += 1;
    const summary = trace.finish('ok');

    expect(summary).toMatchObject({ status: 'ok', startedAt: T0, endedAt: T0 + 1_757, durationMs: 1_757 });
    expect(summary.error).toBeUndefined();
    const detail = tracer.getTrace(trace.traceId);
    expect(TraceDetailSchema.parse(detail)).toEqual(detail);
    expect(detail?.trace).toEqual(summary);
    expect(detail?.events.map((e) => [e.seq, e.type, e.at - T0, e.durationMs])).toEqual([
      [1, 'decision', 0, undefined],
      [2, 'approval_requested', 2, undefined],
      [3, 'approval_answered', 1_502, 1_500],
      [4, 'claim', 1_502, undefined],
      [5, 'attempt_started', 1_503, undefined],
      [6, 'attempt_finished', 1_543, 40],
      [7, 'retry_scheduled', 1_543, undefined],
      [8, 'attempt_started', 1_743, undefined],
      [9, 'attempt_finished', 1_756, 13],
      [10, 'completed', 1_756, undefined],
    ]);
    expect(detail?.events[2]?.data).toEqual({ approved: true, answeredBy: 'u1', waitedMs: 1_500 });
    expect(detail?.events[5]?.data).toEqual({
      attempt: 1,
      outcome: 'error',
      durationMs: 40,
      error: { code: 'timeout', message: 'no answer' },
      recoverable: true,
    });
    expect(detail?.events[8]?.data).toMatchObject({ durationMs: 12.6 });
  });

  it('stores the error a trace ended with (code and message of whatever was thrown)', () => {
    const trace = tracer.start(call());
    class Boom extends Error {
      code = 'remote';
    }
    trace.event('failed', { error: { code: 'remote', message: 'refused' } });
    expect(trace.finish('error', new Boom('server said no')).error).toEqual({
      code: 'remote',
      message: 'server said no',
    });
    expect(tracer.getTrace(trace.traceId)?.trace).toMatchObject({
      status: 'error',
      error: { code: 'remote', message: 'server said no' },
    });
    expect(tracer.start(call()).finish('denied', 'policy').error).toEqual({ message: 'policy' });
  });

  it('refuses invalid event data, and events or a second finish after finish, storing nothing', () => {
    const trace = tracer.start(call());
    expect(() => trace.event('attempt_finished', { attempt: 0, outcome: 'maybe' } as never)).toThrow(
      TraceEventInvalidError,
    );
    expect(() => trace.event('nonsense' as never, {} as never)).toThrow(TraceEventInvalidError);
    trace.finish('replayed');
    expect(trace.finished).toBe(true);
    expect(() => trace.event('replay', {})).toThrow(TraceClosedError);
    expect(() => trace.finish('ok')).toThrow(TraceClosedError);
    expect(tracer.getTrace(trace.traceId)).toMatchObject({ trace: { status: 'replayed' }, events: [] });
  });

  it('keeps extra fields of event data (loose schemas), redacted like the rest', () => {
    const trace = tracer.start(call());
    trace.event('guardrail', { name: 'pii', outcome: 'modified', fieldsChanged: 2, sessionToken: 'abc' } as never);
    expect(tracer.getTrace(trace.traceId)?.events[0]?.data).toEqual({
      name: 'pii',
      outcome: 'modified',
      fieldsChanged: 2,
      sessionToken: REDACTED,
    });
  });
});

describe("the pipeline's own events (numbers, booleans, the schema's words and the decision's texts)", () => {
  it('are stored as given without a zod parse; anything else is still parsed, refused or redacted', () => {
    const parses = (['claim', 'attempt_started', 'attempt_finished', 'completed', 'decision'] as const).map((type) =>
      vi.spyOn(TraceEventDataSchemas[type], 'safeParse'),
    );
    try {
      const trace = tracer.start(call());
      trace.event('decision', { outcome: 'allow', reason: 'matched rule r1', kind: 'rule', ruleId: 'r1' });
      trace.event('claim', { outcome: 'owner' });
      trace.event('attempt_started', { attempt: 1 });
      time += 5;
      trace.event('attempt_finished', { attempt: 1, outcome: 'ok', recoverable: undefined });
      trace.event('completed', { isError: false, contentBlocks: 2 });
      expect(parses.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0, 0, 0]);
      // Out of range, a word the schema lacks, a key naming a credential, a string of the caller's: the full path.
      for (const data of [{ attempt: 0 }, { attempt: 1.5 }, { attempt: Number.MAX_SAFE_INTEGER + 1 }]) {
        expect(() => trace.event('attempt_started', data)).toThrow(TraceEventInvalidError);
      }
      expect(() => trace.event('claim', { outcome: 'maybe' } as never)).toThrow(TraceEventInvalidError);
      expect(() => trace.event('completed', { contentBlocks: 1 } as never)).toThrow(TraceEventInvalidError);
      expect(() => trace.event('attempt_finished', { attempt: 2, outcome: 'ok', durationMs: -1 })).toThrow(
        TraceEventInvalidError,
      );
      trace.event('completed', { isError: true, apiKey: 12345678 } as never);
      trace.event('claim', { outcome: 'owner', note: 'sk-live-secret' } as never);
      expect(parses[0]!.mock.calls.length + parses[3]!.mock.calls.length).toBeGreaterThanOrEqual(4);
      trace.finish('ok');
      const events = tracer.getTrace(trace.traceId)?.events;
      expect(events?.map((e) => [e.type, e.data])).toEqual([
        ['decision', { outcome: 'allow', reason: 'matched rule r1', kind: 'rule', ruleId: 'r1' }],
        ['claim', { outcome: 'owner' }],
        ['attempt_started', { attempt: 1 }],
        ['attempt_finished', { attempt: 1, outcome: 'ok', durationMs: 5 }],
        ['completed', { isError: false, contentBlocks: 2 }],
        ['completed', { isError: true, apiKey: REDACTED }],
        ['claim', { outcome: 'owner', note: 'sk-live-secret' }],
      ]);
      expect(events?.[3]?.durationMs).toBe(5);
    } finally {
      for (const spy of parses) spy.mockRestore();
    }
  });
});

describe('redaction on disk', () => {
  it('never writes a known secret or a credential-named value to the database files', () => {
    const scratch = tempDir('mh-trace-');
    try {
      const file = join(scratch.dir, 'harness.db');
      const fileDb = openAppDatabase(file);
      const secret = 'sk-live-9f8e7d6c5b4a39281706';
      const keyed = 'only-under-a-credential-key-77';
      const redactor = new SecretRedactor();
      const fileTracer = new Tracer(fileDb, { clock: () => time, redactor });
      redactor.add(secret);
      const published: TraceNotification[] = [];
      fileTracer.onEvent((n) => published.push(n));

      const trace = fileTracer.start(call());
      trace.event('decision', {
        outcome: 'allow',
        reason: `header carried ${secret}`,
        marker: 'visible-marker-4242',
        headers: { Authorization: keyed },
      } as never);
      // The pipeline's own decision (hand-checked, no redaction walk): its texts are redacted too.
      trace.event('decision', { outcome: 'deny', reason: `rule quoted ${secret}`, kind: 'rule', ruleId: secret });
      trace.event('attempt_finished', {
        attempt: 1,
        outcome: 'error',
        error: { message: `upstream echoed ${secret}!` },
      });
      trace.event('failed', { error: { code: 'auth', message: `rejected ${secret}` } });
      trace.finish('error', new Error(`401 for key ${secret}`));

      const detail = fileTracer.getTrace(trace.traceId);
      expect(detail?.events[0]?.data).toMatchObject({
        reason: `header carried ${REDACTED}`,
        headers: { Authorization: REDACTED },
      });
      expect(detail?.events[1]?.data).toEqual({
        outcome: 'deny',
        reason: `rule quoted ${REDACTED}`,
        kind: 'rule',
        ruleId: REDACTED,
      });
      expect(detail?.trace.error).toEqual({ message: `401 for key ${REDACTED}` });
      expect(JSON.stringify(published)).not.toContain(secret);
      expect(JSON.stringify(published)).not.toContain(keyed);
      fileDb.close();

      // Every file SQLite may have written: the database, its WAL and shared memory.
      const bytes = ['', '-wal', '-shm']
        .map((suffix) => `${file}${suffix}`)
        .filter((path) => existsSync(path))
        .map((path) => readFileSync(path));
      const all = Buffer.concat(bytes);
      expect(all.includes('visible-marker-4242')).toBe(true); // the search does see what was written
      expect(all.includes(secret)).toBe(false);
      expect(all.includes(keyed)).toBe(false);
    } finally {
      scratch.cleanup();
    }
  });
});

describe('subscriptions', () => {
  it('publishes each stored change in order, until unsubscribed', () => {
    const seen: TraceNotification[] = [];
    const unsubscribe = tracer.onEvent((n) => seen.push(n));
    const trace = tracer.start(call());
    trace.event('claim', { outcome: 'replay' });
    trace.event('replay', { originalTraceId: 't0' });
    trace.finish('replayed');
    // Changes are group-committed on the next turn; listeners hear of them once stored.
    expect(seen).toEqual([]);
    tracer.flush();
    expect(seen.map((n) => (n.kind === 'event' ? `event:${n.event.type}` : n.kind))).toEqual([
      'trace_started',
      'event:claim',
      'event:replay',
      'trace_finished',
    ]);
    for (const n of seen) expect(TraceNotificationSchema.parse(n)).toEqual(n);
    expect(seen[3]).toEqual({ kind: 'trace_finished', trace: tracer.getTrace(trace.traceId)?.trace });

    unsubscribe();
    unsubscribe(); // idempotent
    tracer.start(call()).event('claim', { outcome: 'owner' });
    tracer.flush();
    expect(seen).toHaveLength(4);
  });

  it('delivers to each subscription of the same function until each is removed', () => {
    const listener = vi.fn();
    const off1 = tracer.onEvent(listener);
    const off2 = tracer.onEvent(listener);
    tracer.start(call());
    tracer.flush();
    expect(listener).toHaveBeenCalledTimes(2);
    off1();
    tracer.start(call());
    tracer.flush();
    expect(listener).toHaveBeenCalledTimes(3);
    off2();
    tracer.start(call());
    tracer.flush();
    expect(listener).toHaveBeenCalledTimes(3);
  });

  it('keeps recording and notifying others when a listener throws', () => {
    const onListenerError = vi.fn();
    const noisy = new Tracer(db, { clock: () => time, onListenerError });
    const seen: string[] = [];
    noisy.onEvent(() => {
      throw new Error('listener bug');
    });
    noisy.onEvent((n) => seen.push(n.kind));
    const trace = noisy.start(call());
    trace.event('claim', { outcome: 'owner' });
    noisy.flush();
    expect(seen).toEqual(['trace_started', 'event']);
    expect(onListenerError).toHaveBeenCalledTimes(2);
    expect(noisy.getTrace(trace.traceId)?.events).toHaveLength(1);
  });
});

describe('group commit', () => {
  it('stores queued changes in one transaction shortly after, and reads see them at once', async () => {
    const group = groupCommitFor(db);
    const before = group.stats.transactions;
    const trace = tracer.start(call());
    trace.event('claim', { outcome: 'owner' });
    const count = () =>
      (db.prepare('SELECT COUNT(*) AS n FROM trace_events WHERE trace_id = ?').get(trace.traceId) as { n: number }).n;
    expect(count()).toBe(0); // queued, not yet written
    // Nothing else commits meanwhile, so the queue is written on its own: wait for it to be stored.
    await new Promise<void>((resolve) => tracer.onEvent((n) => n.kind === 'event' && resolve()));
    expect(count()).toBe(1);
    expect(group.stats.transactions - before).toBe(1); // the trace and its event, together
    trace.event('attempt_started', { attempt: 1 });
    expect(tracer.getTrace(trace.traceId)?.events.map((e) => e.type)).toEqual(['claim', 'attempt_started']); // a read flushes first
  });
});

describe('queries', () => {
  /** 45 traces over 3 sessions, 3 tools, 2 servers and several statuses; some start in the same ms. */
  function seed(): TraceSummary[] {
    const statuses = ['ok', 'error', 'denied', 'replayed'] as const;
    const made: TraceSummary[] = [];
    for (let i = 0; i < 45; i++) {
      if (i % 3 !== 0) time += 1;
      const trace = tracer.start(
        call({
          sessionId: `s${i % 3}`,
          callId: `c${i}`,
          toolName: `tool${i % 3 === 0 ? 'A' : i % 3 === 1 ? 'B' : 'C'}`,
          serverId: i % 2 ? 'one' : 'two',
        }),
      );
      made.push(
        i % 5 === 4
          ? (tracer.getTrace(trace.traceId)?.trace as TraceSummary)
          : trace.finish(statuses[i % 4] as (typeof statuses)[number]),
      );
    }
    const order = new Map(made.map((t, i) => [t.traceId, i]));
    return made.sort(
      (a, b) => b.startedAt - a.startedAt || (order.get(b.traceId) as number) - (order.get(a.traceId) as number),
    );
  }

  function everyPage(query: Omit<TraceQuery, 'cursor'>): TraceSummary[] {
    const out: TraceSummary[] = [];
    let cursor: string | undefined;
    let guard = 0;
    do {
      const page = tracer.listTraces({ ...query, ...(cursor ? { cursor } : {}) });
      expect(page.traces.length).toBeLessThanOrEqual(query.limit);
      out.push(...page.traces);
      cursor = page.nextCursor;
    } while (cursor && ++guard < 1_000);
    return out;
  }

  it('pages through every trace exactly once, newest first', () => {
    const expected = seed();
    for (const limit of [1, 4, 45, 500]) expect(everyPage({ limit })).toEqual(expected);
    expect(tracer.listTraces({ limit: 10 }).traces).toHaveLength(10);
    expect(() => tracer.listTraces({ limit: -1 })).toThrow(/limit/);
    expect(() => tracer.listTraces({ limit: 5, cursor: '!!' })).toThrow(/cursor/);
  });

  it('filters by tool, server, status, session and time', () => {
    const expected = seed();
    const cases: [Omit<TraceQuery, 'limit' | 'cursor'>, (t: TraceSummary) => boolean][] = [
      [{ toolName: 'toolB' }, (t) => t.toolName === 'toolB'],
      [{ serverId: 'one' }, (t) => t.serverId === 'one'],
      [{ status: 'running' }, (t) => t.status === 'running'],
      [{ status: 'error' }, (t) => t.status === 'error'],
      [{ sessionId: 's2' }, (t) => t.sessionId === 's2'],
      [
        { sessionId: 's1', serverId: 'two', status: 'ok' },
        (t) => t.sessionId === 's1' && t.serverId === 'two' && t.status === 'ok',
      ],
      [{ from: T0 + 5, to: T0 + 20 }, (t) => t.startedAt >= T0 + 5 && t.startedAt <= T0 + 20],
    ];
    for (const [filter, keep] of cases) {
      const want = expected.filter(keep);
      expect(want.length).toBeGreaterThan(0);
      expect(everyPage({ ...filter, limit: 3 })).toEqual(want);
    }
  });

  it('reads each kind of list page from one of two indexes, without sorting', () => {
    seed();
    const page = tracer.listTraces({ limit: 5 });
    // All traces, or one session's: each has its index; tool, server and status are tested on its entries.
    const cases: [Omit<TraceQuery, 'limit' | 'cursor'>, string][] = [
      [{}, 'traces_by_time'],
      [{ from: T0 }, 'traces_by_time'],
      [{ toolName: 'toolA' }, 'traces_by_time'],
      [{ serverId: 'one' }, 'traces_by_time'],
      [{ status: 'ok' }, 'traces_by_time'],
      [{ sessionId: 's1' }, 'traces_by_session'],
      [{ sessionId: 's1', status: 'ok', toolName: 'toolA' }, 'traces_by_session'],
    ];
    for (const [filter, index] of cases) {
      for (const cursor of [undefined, page.nextCursor]) {
        const plan = tracer.explainList({ ...filter, limit: 5, ...(cursor ? { cursor } : {}) }).join(' | ');
        expect(plan).toContain(`INDEX ${index}`);
        expect(plan).not.toMatch(/TEMP B-TREE/);
        // A range when the cursor, the time range or the session bounds it; else the index from its newest end.
        if (cursor || filter.from !== undefined || filter.sessionId !== undefined)
          expect(plan).toMatch(/^SEARCH traces/);
      }
    }
    // The filter columns are in both indexes, so a trace the filter rejects is never read.
    for (const index of ['traces_by_time', 'traces_by_session']) {
      const columns = (db.pragma(`index_info(${index})`) as Array<{ name: string }>).map((c) => c.name);
      expect(columns).toEqual(expect.arrayContaining(['status', 'tool_name', 'server_id', 'session_id']));
    }
    // And no other index: every trace start and finish writes each one.
    const indexes = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('traces', 'trace_events') ORDER BY name`,
      )
      .all() as Array<{ name: string }>;
    expect(indexes.map((i) => i.name)).toEqual([
      'sqlite_autoindex_traces_1',
      'traces_by_session',
      'traces_by_time',
      'traces_by_user',
    ]); // trace_events is keyed by its primary key alone
  });

  it('exports a trace as a self-describing JSON object', () => {
    const trace = tracer.start(call());
    trace.event('claim', { outcome: 'owner' });
    trace.event('completed', { isError: false });
    time += 5;
    trace.finish('ok');
    time += 100;
    const exported = tracer.exportTrace(trace.traceId);
    expect(exported).toMatchObject({
      format: 'miniharness-trace',
      version: 1,
      exportedAt: T0 + 105,
      trace: { traceId: trace.traceId, durationMs: 5 },
    });
    expect(exported.events.map((e) => e.type)).toEqual(['claim', 'completed']);
    const roundTripped = JSON.parse(JSON.stringify(exported)) as unknown;
    expect(roundTripped).toStrictEqual(exported);
    expect(TraceExportSchema.parse(roundTripped)).toEqual(exported);

    expect(() => tracer.exportTrace('missing')).toThrow(TraceNotFoundError);
    expect(tracer.getTrace('missing')).toBeUndefined();
  });
});
