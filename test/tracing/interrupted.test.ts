/**
 * Traces left `running` by a dead process are closed as `interrupted` at start — and only
 * those: a live process sharing the database keeps its traces. Owners are real processes
 * started (and killed) by the test. Also: the migration that adds the status keeps every
 * trace and event of an older file.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../electron/storage/database.js';
import { openDatabase } from '../../electron/storage/database.js';
import { APP_MIGRATIONS, openAppDatabase } from '../../electron/core/database.js';
import type { ProcessOwner } from '../../electron/storage/processOwner.js';
import { currentProcessOwner, ownerState, processStartTime } from '../../electron/storage/processOwner.js';
import { Tracer } from '../../electron/tracing/tracer.js';
import { INTERRUPTED_BEFORE_RUN_ERROR, INTERRUPTED_ERROR } from '../../electron/tracing/interrupted.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import { hashArguments } from '../../electron/checkpoints/hash.js';
import type { TraceNotification } from '../../shared/traces.js';
import { tempDir } from '../checkpoints/tempDir.js';

const T0 = 1_700_000_000_000;
const call = { sessionId: 's1', callId: 'c1', userId: 'u1', toolName: 'effect', serverId: 'fx' };

/** A real process that idles until killed. */
function idleProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000); process.stdout.write("up\\n")'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve) => child.stdout?.once('data', () => resolve(child)));
}

function ownerOf(child: ChildProcess): ProcessOwner {
  const self = currentProcessOwner();
  const pid = child.pid as number;
  const start = processStartTime(pid);
  return { host: self.host, ...(self.boot ? { boot: self.boot } : {}), pid, ...(start ? { start } : {}) };
}

async function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('which owners are gone', () => {
  let alive: ChildProcess;
  let dead: ProcessOwner;
  let live: ProcessOwner;

  beforeAll(async () => {
    alive = await idleProcess();
    live = ownerOf(alive);
    const doomed = await idleProcess();
    dead = ownerOf(doomed);
    await killed(doomed);
  });
  afterAll(() => alive.kill('SIGKILL'));

  it('this process and another live one are alive; an exited one is dead', () => {
    expect(ownerState(currentProcessOwner())).toBe('alive');
    expect(ownerState(live)).toBe('alive');
    expect(ownerState(dead)).toBe('dead');
  });

  it('a pid that now names another process (start time differs) is dead', () => {
    if (live.start === undefined) return expect(processStartTime(process.pid)).toBeUndefined(); // no /proc: start times unknown here
    expect(ownerState({ ...live, start: String(Number(live.start) + 1) })).toBe('dead');
    expect(ownerState({ ...currentProcessOwner(), start: String(Number(live.start) + 1) })).toBe('dead');
  });

  it('an owner from before a reboot is dead; one on another machine cannot be judged', () => {
    const self = currentProcessOwner();
    if (self.boot) expect(ownerState({ ...live, boot: `${self.boot}-before` })).toBe('dead');
    expect(ownerState({ ...live, host: `${self.host}-elsewhere` })).toBe('unknown');
    expect(ownerState({ ...dead, host: `${self.host}-elsewhere` })).toBe('unknown');
  });
});

describe('closing interrupted traces at start', () => {
  let time: number;
  let db: Database;
  let alive: ChildProcess;
  let live: ProcessOwner;
  let dead: ProcessOwner;
  const tracers: Tracer[] = [];

  beforeAll(async () => {
    alive = await idleProcess();
    live = ownerOf(alive);
    const doomed = await idleProcess();
    dead = ownerOf(doomed);
    await killed(doomed);
  });
  afterAll(() => alive.kill('SIGKILL'));
  beforeEach(() => {
    time = T0;
    db = openAppDatabase(':memory:');
  });
  afterEach(() => {
    for (const tracer of tracers.splice(0)) tracer.flush();
    db.close();
  });

  function tracerOf(owner?: ProcessOwner): Tracer {
    const tracer = new Tracer(db, { clock: () => time, ...(owner ? { owner } : {}) });
    tracers.push(tracer);
    return tracer;
  }

  it('says nothing ran when the call never claimed its checkpoint (it was waiting for approval), and that it may have acted when it had', () => {
    const store = new SqliteCheckpointStore(db, { clock: () => time });
    const waiting = tracerOf(dead).start({ ...call, callId: 'waiting-call' });
    waiting.event('approval_requested', {});
    const running = tracerOf(dead).start({ ...call, callId: 'running-call' });
    store.claim({ ...call, callId: 'running-call', argsHash: hashArguments({}), args: {}, traceId: running.traceId });
    running.event('claim', { outcome: 'owner' });
    for (const tracer of tracers) tracer.flush();

    const starting = tracerOf();
    expect(
      starting
        .closeInterrupted()
        .map((t) => t.callId)
        .sort(),
    ).toEqual(['running-call', 'waiting-call']);
    expect(starting.getTrace(waiting.traceId)?.trace.error).toEqual(INTERRUPTED_BEFORE_RUN_ERROR);
    expect(starting.getTrace(running.traceId)?.trace.error).toEqual(INTERRUPTED_ERROR);
  });

  it('closes only the traces of dead owners, ending them at their last recorded event', () => {
    const ofDead = tracerOf(dead).start({ ...call, callId: 'dead-call' });
    ofDead.event('claim', { outcome: 'owner' });
    time += 40;
    ofDead.event('attempt_started', { attempt: 1 });
    const ofLive = tracerOf(live).start({ ...call, callId: 'live-call' });
    const ofElsewhere = tracerOf({ ...live, host: `${live.host}-elsewhere` }).start({
      ...call,
      callId: 'elsewhere-call',
    });
    const mine = tracerOf().start({ ...call, callId: 'my-call' });
    const finished = tracerOf(dead).start({ ...call, callId: 'finished-call' });
    finished.finish('ok');

    time += 60_000; // the restart comes much later
    for (const tracer of tracers) tracer.flush(); // what the other "processes" recorded is stored
    const starting = tracerOf();
    const heard: TraceNotification[] = [];
    starting.onEvent((n) => heard.push(n));
    const closed = starting.closeInterrupted();

    expect(closed.map((t) => t.callId)).toEqual(['dead-call']);
    const stored = starting.getTrace(ofDead.traceId)?.trace;
    expect(stored).toMatchObject({
      status: 'interrupted',
      startedAt: T0,
      endedAt: T0 + 40,
      durationMs: 40,
      error: { code: 'interrupted' },
    });
    expect(heard).toEqual([{ kind: 'trace_finished', trace: stored }]);
    for (const handle of [ofLive, ofElsewhere, mine])
      expect(starting.getTrace(handle.traceId)?.trace.status).toBe('running');
    expect(starting.getTrace(finished.traceId)?.trace.status).toBe('ok');
    expect(starting.listTraces({ status: 'interrupted', limit: 10 }).traces.map((t) => t.callId)).toEqual([
      'dead-call',
    ]);

    // The live owner finishes normally afterwards; a second sweep finds nothing more to close.
    ofLive.finish('ok');
    for (const tracer of tracers) tracer.flush();
    expect(starting.getTrace(ofLive.traceId)?.trace.status).toBe('ok');
    expect(starting.closeInterrupted()).toEqual([]);
  });

  it('a trace whose owner died before recording any event ends where it started', () => {
    const handle = tracerOf(dead).start(call);
    time += 5_000;
    for (const tracer of tracers) tracer.flush();
    const [closed] = tracerOf().closeInterrupted();
    expect(closed).toMatchObject({ traceId: handle.traceId, status: 'interrupted', endedAt: T0, durationMs: 0 });
  });
});

describe('the migration that adds the interrupted status', () => {
  it('keeps every trace and event of an older file, and their link', () => {
    const scratch = tempDir();
    try {
      const file = join(scratch.dir, 'old.db');
      const old = openDatabase(file, { migrations: APP_MIGRATIONS.slice(0, 2) });
      old
        .prepare(
          `INSERT INTO traces (trace_id, session_id, call_id, user_id, tool_name, server_id, status, started_at) VALUES ('t-old', 's', 'c', 'u', 'tool', 'srv', 'running', ?)`,
        )
        .run(T0);
      old
        .prepare(
          `INSERT INTO traces (trace_id, session_id, call_id, user_id, tool_name, server_id, status, started_at, ended_at, duration_ms) VALUES ('t-done', 's', 'c2', 'u', 'tool', 'srv', 'ok', ?, ?, 5)`,
        )
        .run(T0, T0 + 5);
      const event = old.prepare('INSERT INTO trace_events (trace_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)');
      event.run('t-old', 1, 'claim', T0 + 1, '{"outcome":"owner"}');
      event.run('t-old', 2, 'attempt_started', T0 + 7, '{"attempt":1}');
      event.run('t-done', 1, 'completed', T0 + 5, '{"isError":false}');
      expect(() => old.prepare(`UPDATE traces SET status = 'interrupted' WHERE trace_id = 't-old'`).run()).toThrow(
        /CHECK/,
      );
      old.close();

      const db = openAppDatabase(file);
      try {
        expect(db.prepare('SELECT trace_id, status, owner FROM traces ORDER BY seq').all()).toEqual([
          { trace_id: 't-old', status: 'running', owner: null },
          { trace_id: 't-done', status: 'ok', owner: null },
        ]);
        expect(db.prepare('SELECT COUNT(*) AS n FROM trace_events').get()).toEqual({ n: 3 });
        expect(db.pragma('foreign_key_list(trace_events)')).toMatchObject([
          { table: 'traces', from: 'trace_id', to: 'trace_id', on_delete: 'CASCADE' },
        ]);
        expect(db.pragma('foreign_key_check')).toEqual([]);
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(() => db.prepare(`UPDATE traces SET status = 'lost' WHERE trace_id = 't-done'`).run()).toThrow(/CHECK/);

        // A trace from before owners were recorded: no version that could still be running wrote it.
        const tracer = new Tracer(db, { clock: () => T0 + 60_000 });
        expect(tracer.closeInterrupted()).toMatchObject([
          { traceId: 't-old', status: 'interrupted', endedAt: T0 + 7, durationMs: 7 },
        ]);
        expect(tracer.getTrace('t-old')?.events.map((e) => e.type)).toEqual(['claim', 'attempt_started']);

        db.prepare(`DELETE FROM traces WHERE trace_id = 't-done'`).run();
        expect(db.prepare(`SELECT COUNT(*) AS n FROM trace_events WHERE trace_id = 't-done'`).get()).toEqual({ n: 0 });
      } finally {
        db.close();
      }
    } finally {
      scratch.cleanup();
    }
  });
});
