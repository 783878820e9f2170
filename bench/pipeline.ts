/**
 * Benchmark: what the secure pipeline adds to a tool call, and how fast a history page is.
 *
 * One stdio echo server (the test fixture), called three ways in the same run:
 * - raw SDK: the official `Client` over `StdioClientTransport`, `callTool('echo')`;
 * - pipeline: `HarnessApplication.executeTool('echo')` over real parts — permission engine with
 *   an ALLOW rule for the server (no approval), SQLite checkpoint store and tracer on one WAL
 *   file in a temp folder, the MCP registry. Every call has its own callId, so every call runs;
 * - the ablation: the same pipeline over an in-memory SQLite database (no file), which separates
 *   the file's cost from the record's own (SQLite statements, trace, decision, validation).
 * Each side: a warm-up, then per round N sequential calls (p50/p99 latency from performance.now
 * per call) and N concurrent calls (throughput). The side that goes first turns each round and
 * the order reverses every other round; the figures are the medians over rounds. Also printed: the
 * pipeline's group commits (transactions per call, writes per transaction, time inside SQLite)
 * and, for the concurrent runs, CPU per call in this process and in the server process (Linux
 * /proc) — what shows whether the machine or the design is the limit.
 *
 * History: a fresh SQLite file filled through the store's own claim/complete (inside
 * transactions) with 100,000 completed records, half of them in the GUI's one session, then
 * 50-record pages timed as the History view asks for them — one session, by status (tool errors
 * and a status with no record included) or tool; first pages and deeper pages reached by cursor.
 * Pages across sessions (API only) are printed apart, outside the History figure.
 *
 * Prints a table, then one JSON line. Run: npm run bench:pipeline
 * Knobs (env): BENCH_CALLS (2000), BENCH_WARMUP (200), BENCH_ROUNDS (5), BENCH_CONCURRENCY
 * ('burst' or a bound such as 100), BENCH_HISTORY_RECORDS (100000), BENCH_HISTORY_QUERIES (200),
 * BENCH_STAGES=1 (also time the pipeline's stages, sequentially, with wrapped parts), BENCH_ONLY=pins (only
 * tool pinning's figures: listing 1,000 tools with hashing and screening, the per-call pin check; bench/pinning.ts).
 *
 * `npm run bench:pipeline -- --profile`: instead of the figures above, V8's sampling profile of
 * this process (pipelineProfile.ts) while the pipeline runs BENCH_PROFILE_CALLS (5000) sequential,
 * then as many concurrent calls, after the same warm-up; the raw SDK client is profiled the same
 * way, for the floor. Prints busy time per call by kind (SQLite, each project area, SDK, Node,
 * GC) and the project files' functions with the most self time. BENCH_PROFILE_DIR writes each section's
 * summary there; BENCH_PROFILE_BASELINE (an earlier run's BENCH_PROFILE_DIR) prints each row before → after.
 */
import type { PinningFigures } from './pinning.js';
import { measurePinning, pinningRows } from './pinning.js';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { hashArguments } from '../electron/checkpoints/hash.js';
import { SqliteCheckpointStore } from '../electron/checkpoints/sqliteStore.js';
import type { CheckpointStatus, HistoryQuery } from '../electron/checkpoints/types.js';
import type { HarnessApplication } from '../electron/harness/application.js';
import { createPipeline } from '../electron/harness/createPipeline.js';
import { DefaultSecretResolver } from '../electron/secrets/resolver.js';
import type { Database } from '../electron/storage/database.js';
import { openAppDatabase } from '../electron/core/database.js';
import { createLocalTools } from '../electron/tools/localTools.js';
import type { Tracer } from '../electron/tracing/tracer.js';
import { buildFixtureServers } from '../test/helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, stdioFixtureConfig } from '../test/helpers/fixtures.js';
import type { GroupCommitStats } from '../electron/storage/groupCommit.js';
import type { Caller, ConcurrencyMode, CpuSample, SequentialResult } from './pipelineHelpers.js';
import type { ProfileSummary } from './pipelineProfile.js';
import { formatSummary, profileWhile, summarize } from './pipelineProfile.js';
import {
  InMemoryRuleStore,
  ROUND_TRIP_STAGE,
  StageTimer,
  describeConcurrency,
  fmt,
  instrumentPipeline,
  measureCpu,
  median,
  parseConcurrency,
  percentile,
  printTable,
  runBench,
  runConcurrent,
  runSequential,
} from './pipelineHelpers.js';
import { testSandboxes } from '../test/helpers/sandboxes.js';
import { endSandboxSession } from '../electron/sandbox/serverSandbox.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY: ConcurrencyMode = parseConcurrency(process.env.BENCH_CONCURRENCY);
const HISTORY_RECORDS = Number(process.env.BENCH_HISTORY_RECORDS ?? 100_000);
const HISTORY_QUERIES = Number(process.env.BENCH_HISTORY_QUERIES ?? 200);
const STAGES = process.env.BENCH_STAGES === '1';
const PROFILE = process.argv.includes('--profile');
const PROFILE_CALLS = Number(process.env.BENCH_PROFILE_CALLS ?? 5000);
/** `--profile`: writes each section's summary here (JSON), for a later run's BENCH_PROFILE_BASELINE. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
/** `--profile`: an earlier run's BENCH_PROFILE_DIR; each row then reads before → after. */
const PROFILE_BASELINE = process.env.BENCH_PROFILE_BASELINE;

const SERVER_ID = 'fx';
const USER = { userId: 'bench-user', sessionId: 'bench-session' };

// A burst writes faster than the server reads; the SDK's stdio send() then adds one 'drain'
// listener per pending write, which trips Node's leak warning (10) on every burst. The warning
// is noise here; the limit only governs that message.
EventEmitter.defaultMaxListeners = Math.max(
  EventEmitter.defaultMaxListeners,
  CALLS + WARMUP + 100,
  PROFILE ? PROFILE_CALLS + 100 : 0,
);

const work = mkdtempSync(join(tmpdir(), 'mh-bench-pipeline-'));
/** Everything to close at the end, newest first (also on failure). */
// The sandbox library's session (its proxy and bridges) is the process's, not a core's: ended last, or the bench never exits.
const closers: Array<() => Promise<void> | void> = [() => endSandboxSession()];

function echoText(i: number): string {
  return `hello #${i}`;
}

function checkEcho(content: unknown, expected: string): void {
  const first = Array.isArray(content) ? (content[0] as { type?: unknown; text?: unknown } | undefined) : undefined;
  if (first?.type !== 'text' || first.text !== expected)
    throw new Error(`echo answered ${JSON.stringify(content)}, expected "${expected}"`);
}

// ── the two callers ──────────────────────────────────────────────────────────────────────────

async function rawCaller(): Promise<Caller> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BUILT_STDIO_FIXTURE],
    cwd: PROJECT_ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined); // the fixture logs a line at start; drain it, as the registry does
  const client = new Client(
    { name: 'bench-raw', version: '0.0.0' },
    { capabilities: {}, versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(transport);
  closers.push(() => client.close());
  // A real client lists tools before calling them (the SDK then knows the output schemas), as the registry did.
  const { tools } = await client.listTools();
  if (!tools.some((t) => t.name === 'echo')) throw new Error('raw: the fixture offers no echo tool');
  return async (i) => {
    const text = echoText(i);
    const result = await client.callTool({ name: 'echo', arguments: { text } });
    checkEcho(result.content, text);
  };
}

interface Pipeline {
  call: Caller;
  harness: HarnessApplication;
  tracer: Tracer;
  checkpoints: SqliteCheckpointStore;
  db: Database;
}

/**
 * `inMemory`: the same pipeline over an in-memory SQLite database (same schema, statements and
 * group commits, nothing written to a file) — the ablation that tells the file's share of a call
 * (WAL appends through the OS: this machine's file system) from SQLite's and the pipeline's own work.
 */
async function buildPipeline(name: string, timer?: StageTimer, inMemory = false): Promise<Pipeline> {
  const dir = join(work, name);
  const root = join(dir, 'root');
  mkdirSync(root, { recursive: true });
  const db = openAppDatabase(inMemory ? ':memory:' : join(dir, 'harness.db')); // WAL, synchronous=NORMAL: the app's settings
  const { harness, registry, engine, security, checkpoints, tracer, redactor } = await createPipeline({
    db,
    secrets: new DefaultSecretResolver(),
    registry: { sandboxes: testSandboxes() },
    rules: new InMemoryRuleStore(),
    requestApproval: () => Promise.reject(new Error('bench: no approval was expected (the ALLOW rule should decide)')),
    approvalTimeoutMs: 5_000,
    localTools: createLocalTools({ roots: [root], command: { timeoutMs: 5_000 } }),
  });
  closers.push(() => {
    tracer.flush();
    db.close();
  });
  closers.push(() => registry.close());
  await engine.addRule({ level: 'ALLOW', match: { serverId: SERVER_ID }, note: 'bench: allow the fixture' });
  registry.addServer(stdioFixtureConfig(SERVER_ID));
  const discovery = await registry.discover();
  const status = discovery.servers[SERVER_ID]?.status;
  if (status?.state !== 'ready') throw new Error(`pipeline: the fixture did not come up (${JSON.stringify(status)})`);
  // Wraps instance methods; the application calls through the same instances, so it sees the wrappers.
  if (timer) instrumentPipeline(timer, { security, checkpoints, tracer, redactor, registry });
  const call: Caller = async (i) => {
    const text = echoText(i);
    const out = await harness.executeTool('echo', { text }, { ...USER, callId: `${name}-${i}` });
    if (out.replayed || out.serverId !== SERVER_ID)
      throw new Error(`pipeline: unexpected ${JSON.stringify({ replayed: out.replayed, serverId: out.serverId })}`);
    checkEcho(out.result.content, text);
  };
  return { call, harness, tracer, checkpoints, db };
}

/** The first warm-up call must have been allowed by the rule, with no approval and one attempt. */
async function checkPipelineDecision(pipeline: Pipeline): Promise<void> {
  const out = await pipeline.harness.executeTool('echo', { text: 'check' }, { ...USER, callId: 'decision-check' });
  const trace = pipeline.tracer.getTrace(out.traceId);
  const types = trace?.events.map((e) => e.type).join(',');
  const decision = trace?.events.find((e) => e.type === 'decision');
  const data = decision?.data as { outcome?: string; kind?: string } | undefined;
  if (trace?.trace.status !== 'ok' || data?.outcome !== 'allow' || data.kind !== 'rule') {
    throw new Error(`pipeline: the call was not allowed by the rule (status ${trace?.trace.status}, events ${types})`);
  }
  if (types !== 'decision,claim,attempt_started,attempt_finished,completed')
    throw new Error(`pipeline: unexpected trace events ${types}`);
  const mode = pipeline.db.pragma('journal_mode', { simple: true });
  const expected = pipeline.db.memory ? 'memory' : 'wal';
  if (mode !== expected) throw new Error(`pipeline: journal_mode is ${String(mode)}, expected ${expected}`);
}

// ── call latency and throughput ──────────────────────────────────────────────────────────────

interface SideFigures {
  seq: SequentialResult[];
  conc: number[];
  /** CPU of each concurrent run: here (client or pipeline) and in the server. */
  concCpu: CpuSample[];
  /** Pipeline only: its group commits during each sequential / concurrent run. */
  seqCommits: GroupCommitStats[];
  concCommits: GroupCommitStats[];
}

function statsDelta(after: GroupCommitStats, before: GroupCommitStats): GroupCommitStats {
  return {
    transactions: after.transactions - before.transactions,
    writes: after.writes - before.writes,
    largestBatch: after.largestBatch,
    busyMs: after.busyMs - before.busyMs,
  };
}

type SideName = 'raw' | 'pipe' | 'mem';
const SIDES: readonly SideName[] = ['raw', 'pipe', 'mem'];

async function measureCalls(): Promise<Record<SideName, SideFigures> & { rawCall: Caller; pipeCall: Caller }> {
  const raw = await rawCaller();
  const pipeline = await buildPipeline('pipeline');
  await checkPipelineDecision(pipeline);
  const inMemory = await buildPipeline('pipeline-in-memory', undefined, true);
  await checkPipelineDecision(inMemory);

  const sides = {
    raw: { call: raw, next: 0 },
    pipe: { call: pipeline.call, next: 0 },
    mem: { call: inMemory.call, next: 0 },
  };
  const take = (side: keyof typeof sides, n: number): number => {
    const first = sides[side].next;
    sides[side].next += n;
    return first;
  };

  // Warm-up: JIT, statement caches, the child's own warm-up; one concurrent burst too.
  for (const side of SIDES) {
    await runSequential(sides[side].call, WARMUP, take(side, WARMUP));
    await runConcurrent(sides[side].call, WARMUP, take(side, WARMUP), CONCURRENCY);
  }

  const empty = (): SideFigures => ({ seq: [], conc: [], concCpu: [], seqCommits: [], concCommits: [] });
  const figures: Record<SideName, SideFigures> = { raw: empty(), pipe: empty(), mem: empty() };
  const none: GroupCommitStats = { transactions: 0, writes: 0, largestBatch: 0, busyMs: 0 }; // the raw client commits nothing
  const statsOf = {
    raw: () => none,
    pipe: () => pipeline.checkpoints.groupCommitStats,
    mem: () => inMemory.checkpoints.groupCommitStats,
  };
  for (let round = 0; round < ROUNDS; round++) {
    // The side that goes first turns, and the order reverses every other round, so drift (heat, WAL growth) hits all alike.
    const turned = [...SIDES.slice(round % SIDES.length), ...SIDES.slice(0, round % SIDES.length)];
    const order = round % 2 === 0 ? turned : turned.reverse();
    for (const side of order) {
      const stats = statsOf[side];
      const before = stats();
      figures[side].seq.push(await runSequential(sides[side].call, CALLS, take(side, CALLS)));
      figures[side].seqCommits.push(statsDelta(stats(), before));
    }
    for (const side of order) {
      const stats = statsOf[side];
      const before = stats();
      let throughput = 0;
      figures[side].concCpu.push(
        await measureCpu(async () => {
          throughput = await runConcurrent(sides[side].call, CALLS, take(side, CALLS), CONCURRENCY);
        }),
      );
      figures[side].conc.push(throughput);
      figures[side].concCommits.push(statsDelta(stats(), before));
    }
  }
  return { ...figures, rawCall: raw, pipeCall: pipeline.call };
}

// ── history pages ────────────────────────────────────────────────────────────────────────────

/**
 * The shape of a real profile: the GUI keeps ONE session per data folder, so half the records are
 * in it; agents' sessions share the other half.
 */
const HISTORY_SESSIONS = 200;
const GUI_SESSION = 'session-gui';
/** One in this many records is left `started` (in progress / result unknown), on top of the completed ones. */
const STARTED_EVERY = 100;
/** One in this many completed calls ended with a tool error (a result with isError). */
const TOOL_ERROR_EVERY = 50;
const HISTORY_TOOLS = ['echo', 'read_file', 'write_file', 'search', 'run_command'];

interface HistoryFigures {
  fillMs: number;
  completed: number;
  started: number;
  guiRecords: number;
  all: number[];
  byKind: Map<string, number[]>;
  first: number[];
  deep: number[];
  /** Pages across sessions (the API allows them; the History view does not ask for them): informative. */
  acrossSessions: Map<string, number[]>;
}

function sessionOf(i: number): string {
  return i % 2 === 0 ? GUI_SESSION : `session-${String(i % (HISTORY_SESSIONS - 1)).padStart(4, '0')}`;
}

function fillHistory(
  db: Database,
  store: SqliteCheckpointStore,
  advance: () => void,
): { completed: number; started: number; guiRecords: number } {
  let completed = 0;
  let started = 0;
  let guiRecords = 0;
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const session = sessionOf(i);
      const toolName = HISTORY_TOOLS[i % HISTORY_TOOLS.length]!;
      const args = { text: `history record ${i}`, path: `/home/user/project/file-${i % 997}.txt` };
      const base = {
        sessionId: session,
        userId: 'bench-user',
        toolName,
        serverId: SERVER_ID,
        argsHash: hashArguments(args),
        args,
      };
      advance();
      const claim = store.claim({ ...base, callId: `call-${i}`, traceId: `trace-${i}` });
      if (claim.kind !== 'owner') throw new Error('history fill: expected a fresh claim');
      advance();
      const isError = Math.floor(i / 2) % TOOL_ERROR_EVERY === 3; // both parities: the GUI session and the others
      store.complete(session, `call-${i}`, claim.lease, {
        content: [{ type: 'text', text: `result of record ${i}: ${'x'.repeat(80)}` }],
        structuredContent: undefined,
        isError,
      });
      completed++;
      if (session === GUI_SESSION) guiRecords++;
      if (Math.floor(i / 2) % STARTED_EVERY === 0) {
        advance();
        store.claim({ ...base, callId: `call-${i}-pending`, traceId: `trace-${i}-pending` });
        started++;
        if (session === GUI_SESSION) guiRecords++;
      }
    }
  });
  const CHUNK = 10_000;
  for (let from = 0; from < HISTORY_RECORDS; from += CHUNK) batch(from, Math.min(HISTORY_RECORDS, from + CHUNK));
  return { completed, started, guiRecords };
}

function measureHistory(): HistoryFigures {
  const file = join(work, 'history', 'history.db');
  // The fill runs on its own connection with a large page cache (setup only, to stay fast);
  // the pages are then read through a fresh connection with the app's settings.
  const fillDb = openAppDatabase(file);
  fillDb.pragma('cache_size = -262144');
  // Activity spread over time like a real profile: ~1 s between store writes.
  let now = Date.now() - HISTORY_RECORDS * 3 * 1000;
  const fillStarted = performance.now();
  const { completed, started, guiRecords } = fillHistory(
    fillDb,
    new SqliteCheckpointStore(fillDb, { clock: () => now }),
    () => {
      now += 1000;
    },
  );
  fillDb.pragma('wal_checkpoint(TRUNCATE)');
  fillDb.close();
  const fillMs = performance.now() - fillStarted;

  const db = openAppDatabase(file);
  closers.push(() => {
    db.close();
  });
  const store = new SqliteCheckpointStore(db);

  // What the History view asks: always one session (the GUI's, or an agent's), optionally by
  // status or tool; first pages and pages further down (cursors found untimed).
  const sessions = store
    .listSessions()
    .map((s) => s.sessionId)
    .filter((s) => s !== GUI_SESSION);
  const filters: Array<{ kind: string; query: Omit<HistoryQuery, 'limit'> }> = [
    { kind: 'GUI session', query: { sessionId: GUI_SESSION } },
    { kind: 'GUI session, completed', query: { sessionId: GUI_SESSION, status: 'completed' } },
    {
      kind: 'GUI session, in progress / unknown',
      query: { sessionId: GUI_SESSION, status: 'started' as CheckpointStatus },
    },
    { kind: 'GUI session, tool errors', query: { sessionId: GUI_SESSION, status: 'tool_error' } },
    { kind: 'GUI session, failed (none)', query: { sessionId: GUI_SESSION, status: 'failed' as CheckpointStatus } },
    { kind: 'GUI session, one tool', query: { sessionId: GUI_SESSION, toolName: 'write_file' } },
    ...sessions.filter((_, i) => i % 20 === 7).map((sessionId) => ({ kind: 'agent session', query: { sessionId } })),
  ];
  const DEPTHS = [1, 2, 5, 10, 100];
  interface Target {
    kind: string;
    depth: number;
    query: HistoryQuery;
  }
  const targetsOf = (list: typeof filters): Target[] => {
    const targets: Target[] = [];
    for (const { kind, query } of list) {
      let cursor: string | undefined;
      for (let page = 1; page <= Math.max(...DEPTHS); page++) {
        if (DEPTHS.includes(page))
          targets.push({ kind, depth: page, query: { ...query, limit: 50, ...(cursor ? { cursor } : {}) } });
        const result = store.history({ ...query, limit: 50, ...(cursor ? { cursor } : {}) });
        if (!result.nextCursor) break;
        cursor = result.nextCursor;
      }
    }
    return targets;
  };
  const targets = targetsOf(filters);
  for (const target of targets) store.history(target.query); // warm: statements prepared, pages cached

  // The timed mix: round-robin over filter kinds, then over that kind's targets.
  const kinds = [...new Set(targets.map((t) => t.kind))];
  const byKindTargets = new Map(kinds.map((k) => [k, targets.filter((t) => t.kind === k)]));
  const figures: HistoryFigures = {
    fillMs,
    completed,
    started,
    guiRecords,
    all: [],
    byKind: new Map(kinds.map((k) => [k, []])),
    first: [],
    deep: [],
    acrossSessions: new Map(),
  };
  for (let q = 0; q < HISTORY_QUERIES; q++) {
    const kind = kinds[q % kinds.length]!;
    const list = byKindTargets.get(kind)!;
    const target = list[Math.floor(q / kinds.length) % list.length]!;
    const t0 = performance.now();
    const page = store.history(target.query);
    const ms = performance.now() - t0;
    if (page.records.length === 0 && !kind.includes('(none)'))
      throw new Error(`history: empty page for ${kind} page ${target.depth}`);
    figures.all.push(ms);
    figures.byKind.get(kind)!.push(ms);
    (target.depth === 1 ? figures.first : figures.deep).push(ms);
  }

  // Across sessions: first pages only, a few times each (not part of the History figure).
  for (const { kind, query } of [
    { kind: 'all sessions', query: {} },
    { kind: 'all sessions, in progress / unknown', query: { status: 'started' as CheckpointStatus } },
  ]) {
    const samples: number[] = [];
    store.history({ ...query, limit: 50 });
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      store.history({ ...query, limit: 50 });
      samples.push(performance.now() - t0);
    }
    figures.acrossSessions.set(kind, samples);
  }
  return figures;
}

// ── stage breakdown (optional) ───────────────────────────────────────────────────────────────

async function measureStages(rawCall: Caller): Promise<string[][]> {
  const timer = new StageTimer();
  const pipeline = await buildPipeline('stages', timer);
  const timed: Caller = async (i) => {
    await pipeline.call(i);
    timer.endCall();
  };
  await runSequential(timed, WARMUP, 0);
  await runSequential(rawCall, WARMUP, 10_000_000);
  timer.reset();
  const run = await runSequential(timed, CALLS, WARMUP);
  const rawRun = await runSequential(rawCall, CALLS, 10_000_000 + WARMUP);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const rows = [...timer.perCall].map(([name, samples]) => [name, fmt(median(samples), 4), fmt(mean(samples), 4)]);
  const covered = Array.from({ length: CALLS }, (_, i) =>
    [...timer.perCall.values()].reduce((a, samples) => a + samples[i]!, 0),
  );
  const other = run.samples.map((total, i) => total - covered[i]!);
  rows.push(['other (resolve, fingerprint, hash, awaits)', fmt(median(other), 4), fmt(mean(other), 4)]);
  rows.push(['= executeTool, instrumented', fmt(median(run.samples), 4), fmt(mean(run.samples), 4)]);
  rows.push(['(raw SDK callTool, right after)', fmt(median(rawRun.samples), 4), fmt(mean(rawRun.samples), 4)]);
  // The server waits while the pipeline works between two calls; a raw client that is busy as
  // long between its calls shows what that pause alone does to a round trip (wake-up, caches).
  const roundTrip = timer.perCall.get(ROUND_TRIP_STAGE);
  if (roundTrip) {
    const gapMs = median(run.samples) - median(roundTrip);
    const gapped: Caller = async (i) => {
      const until = performance.now() + gapMs;
      while (performance.now() < until) {
        // busy, like the pipeline's own work between two calls
      }
      await rawCall(i);
    };
    const gappedRun = await runSequential(gapped, CALLS, 20_000_000);
    rows.push([
      `(raw SDK callTool, ${fmt(gapMs, 2)} ms busy before each call)`,
      fmt(median(gappedRun.samples) - gapMs, 4),
      fmt(mean(gappedRun.samples) - gapMs, 4),
    ]);
  }
  return rows;
}

// ── profile (--profile) ──────────────────────────────────────────────────────────────────────

async function profilePipeline(): Promise<void> {
  const raw = await rawCaller();
  const pipeline = await buildPipeline('profile');
  await checkPipelineDecision(pipeline);
  let next = 0;
  const take = (n: number) => {
    const first = next;
    next += n;
    return first;
  };
  for (const call of [raw, pipeline.call]) {
    await runSequential(call, WARMUP, take(WARMUP));
    await runConcurrent(call, WARMUP, take(WARMUP), CONCURRENCY);
  }
  const conc = describeConcurrency(CONCURRENCY, PROFILE_CALLS);
  const sections: Array<[string, Caller]> = [
    ['raw SDK callTool', raw],
    ['pipeline executeTool', pipeline.call],
  ];
  const stats = () => pipeline.checkpoints.groupCommitStats;
  for (const [name, call] of sections) {
    const before = stats();
    const seq = summarize(
      await profileWhile(async () => void (await runSequential(call, PROFILE_CALLS, take(PROFILE_CALLS))), 100),
      PROFILE_CALLS,
    );
    const mid = stats();
    const par = summarize(
      await profileWhile(
        async () => void (await runConcurrent(call, PROFILE_CALLS, take(PROFILE_CALLS), CONCURRENCY)),
        100,
      ),
      PROFILE_CALLS,
    );
    const after = stats();
    const file = (mode: string) => `pipeline-${call === raw ? 'raw' : 'pipeline'}-${mode}.json`;
    if (PROFILE_DIR) {
      mkdirSync(PROFILE_DIR, { recursive: true });
      writeFileSync(join(PROFILE_DIR, file('sequential')), JSON.stringify(seq));
      writeFileSync(join(PROFILE_DIR, file('concurrent')), JSON.stringify(par));
    }
    const baseline = (mode: string): ProfileSummary | undefined => {
      if (!PROFILE_BASELINE) return undefined;
      try {
        return JSON.parse(readFileSync(join(PROFILE_BASELINE, file(mode)), 'utf8')) as ProfileSummary;
      } catch {
        console.log(`(no baseline profile ${file(mode)} in ${PROFILE_BASELINE})`);
        return undefined;
      }
    };
    for (const line of formatSummary(`${name}, sequential`, seq, baseline('sequential'))) console.log(line);
    if (call === pipeline.call)
      console.log(
        `  (group commit: ${fmt(((mid.busyMs - before.busyMs) / PROFILE_CALLS) * 1000, 1)} µs/call inside SQLite transactions, ${fmt((mid.transactions - before.transactions) / PROFILE_CALLS, 2)} transactions/call)`,
      );
    console.log('');
    for (const line of formatSummary(`${name}, concurrent (${conc})`, par, baseline('concurrent'))) console.log(line);
    if (call === pipeline.call)
      console.log(
        `  (group commit: ${fmt(((after.busyMs - mid.busyMs) / PROFILE_CALLS) * 1000, 1)} µs/call inside SQLite transactions, ${fmt((after.transactions - mid.transactions) / PROFILE_CALLS, 3)} transactions/call)`,
      );
    console.log('');
  }
  console.log(
    `(sampling every 100 µs; per call = busy time of this process / calls; the server's own CPU is not in it; ${process.platform}, ${cpus().length} cores, node ${process.versions.node}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
}

// ── main ─────────────────────────────────────────────────────────────────────────────────────

async function main(): Promise<void> {
  const started = performance.now();
  const startLoad = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  // Tool pinning first (pure CPU, no server): BENCH_ONLY=pins prints only it.
  const pinning = measurePinning();
  if (process.env.BENCH_ONLY === 'pins') {
    printTable(pinningRows(pinning));
    console.log(
      `(${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    );
    console.log(JSON.stringify({ bench: 'pipeline-pins', ...pinningJson(pinning) }));
    return;
  }
  await buildFixtureServers();
  if (PROFILE) return profilePipeline();

  const calls = await measureCalls();
  const rawP50 = median(calls.raw.seq.map((r) => r.p50));
  const rawP99 = median(calls.raw.seq.map((r) => r.p99));
  const pipeP50 = median(calls.pipe.seq.map((r) => r.p50));
  const pipeP99 = median(calls.pipe.seq.map((r) => r.p99));
  const rawSeqTput = median(calls.raw.seq.map((r) => r.throughput));
  const pipeSeqTput = median(calls.pipe.seq.map((r) => r.throughput));
  const rawConc = median(calls.raw.conc);
  const pipeConc = median(calls.pipe.conc);
  const memP50 = median(calls.mem.seq.map((r) => r.p50));
  const memP99 = median(calls.mem.seq.map((r) => r.p99));
  const memConc = median(calls.mem.conc);

  const history = measureHistory();
  const pageP50 = median(history.all);

  const stages = STAGES ? await measureStages(calls.rawCall) : undefined;

  // Where the time goes under concurrency: CPU per call, here and in the server (medians over rounds).
  const perCall = (samples: CpuSample[], pick: (s: CpuSample) => number) =>
    median(samples.map((s) => (pick(s) / CALLS) * 1000));
  const cpu = {
    rawClientUs: perCall(calls.raw.concCpu, (s) => s.mainCpuMs),
    rawServerUs: perCall(calls.raw.concCpu, (s) => s.serverCpuMs),
    pipeMainUs: perCall(calls.pipe.concCpu, (s) => s.mainCpuMs),
    pipeServerUs: perCall(calls.pipe.concCpu, (s) => s.serverCpuMs),
    pipeSqliteUs: median(calls.pipe.concCommits.map((c) => (c.busyMs / CALLS) * 1000)),
    seqSqliteUs: median(calls.pipe.seqCommits.map((c) => (c.busyMs / CALLS) * 1000)),
    memMainUs: perCall(calls.mem.concCpu, (s) => s.mainCpuMs),
    memSqliteUs: median(calls.mem.concCommits.map((c) => (c.busyMs / CALLS) * 1000)),
  };
  const commitsPerCall = (list: GroupCommitStats[]) => median(list.map((c) => c.transactions / CALLS));
  const writesPerCommit = (list: GroupCommitStats[]) => median(list.map((c) => c.writes / Math.max(1, c.transactions)));

  const conc = describeConcurrency(CONCURRENCY, CALLS);
  const rows: string[][] = [
    ['scenario', 'p50 ms', 'p99 ms', 'throughput /s'],
    [`raw SDK callTool, ${CALLS} sequential`, fmt(rawP50), fmt(rawP99), fmt(rawSeqTput, 0)],
    [`pipeline executeTool, ${CALLS} sequential`, fmt(pipeP50), fmt(pipeP99), fmt(pipeSeqTput, 0)],
    [`raw SDK callTool, concurrent`, '', '', fmt(rawConc, 0)],
    [`pipeline executeTool, concurrent`, '', '', fmt(pipeConc, 0)],
    [`  ablation: the same pipeline, its database in memory, ${CALLS} sequential`, fmt(memP50), fmt(memP99), ''],
    [`  ablation: the same pipeline, its database in memory, concurrent`, '', '', fmt(memConc, 0)],
    [
      `history page (50), ${history.all.length} History view queries`,
      fmt(pageP50),
      fmt(percentile(history.all, 0.99)),
      '',
    ],
    ['  first pages', fmt(median(history.first)), fmt(percentile(history.first, 0.99)), ''],
    ['  deeper pages (2–100, by cursor)', fmt(median(history.deep)), fmt(percentile(history.deep, 0.99)), ''],
    ...[...history.byKind].map(([kind, values]) => [
      `  ${kind}`,
      fmt(median(values)),
      fmt(percentile(values, 0.99)),
      '',
    ]),
    ...[...history.acrossSessions].map(([kind, values]) => [
      `(API only, not a History view query) ${kind}`,
      fmt(median(values)),
      fmt(Math.max(...values)),
      '',
    ]),
  ];
  printTable(rows);
  console.log('');
  printTable(pinningRows(pinning));
  console.log('');
  console.log(
    `pipeline vs raw: p50 ×${fmt(pipeP50 / rawP50, 2)} (+${fmt(pipeP50 - rawP50)} ms), p99 ×${fmt(pipeP99 / rawP99, 2)}, concurrent ×${fmt(pipeConc / rawConc, 2)}` +
      `  (goals: p50 ≤ +0.15 ms (issue 33), p99 ≤ ×3, concurrent ≥ ×0.8, page ≤ 10 ms)`,
  );
  console.log(
    `group commit: sequential ${fmt(commitsPerCall(calls.pipe.seqCommits), 2)} transactions/call (${fmt(writesPerCommit(calls.pipe.seqCommits), 1)} writes each, ${fmt(cpu.seqSqliteUs, 0)} µs in SQLite/call); ` +
      `concurrent ${fmt(commitsPerCall(calls.pipe.concCommits), 3)} transactions/call (${fmt(writesPerCommit(calls.pipe.concCommits), 0)} writes each, largest ${calls.pipe.concCommits.reduce((m, c) => Math.max(m, c.largestBatch), 0)})`,
  );
  console.log(
    `CPU per concurrent call (2 cores): raw SDK client ${fmt(cpu.rawClientUs, 0)} µs + server ${fmt(cpu.rawServerUs, 0)} µs; ` +
      `pipeline process ${fmt(cpu.pipeMainUs, 0)} µs (of which SQLite transactions ${fmt(cpu.pipeSqliteUs, 0)} µs) + server ${fmt(cpu.pipeServerUs, 0)} µs`,
  );
  console.log(
    `where the concurrent gap goes: the pipeline process spends ${fmt(cpu.pipeMainUs - cpu.rawClientUs, 0)} µs/call more than the raw client; ` +
      `with its database in memory it spends ${fmt(cpu.memMainUs, 0)} µs/call (SQLite transactions ${fmt(cpu.memSqliteUs, 0)} µs) and reaches concurrent ×${fmt(memConc / rawConc, 2)} of raw, p50 +${fmt(memP50 - rawP50)} ms — ` +
      `so the database file (WAL appends and locks through this machine's file system, and the WAL's checkpoints, in this process's CPU) costs ${fmt(cpu.pipeMainUs - cpu.memMainUs, 0)} µs/call, and ${fmt(cpu.memMainUs - cpu.rawClientUs, 0)} µs/call is the record itself (SQLite statements, the trace, the decision, validation)`,
  );
  const spread = (values: number[], digits: number) =>
    `${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}`;
  console.log(
    `per-round spread: p50 raw ${spread(
      calls.raw.seq.map((r) => r.p50),
      3,
    )} / pipeline ${spread(
      calls.pipe.seq.map((r) => r.p50),
      3,
    )} / in memory ${spread(
      calls.mem.seq.map((r) => r.p50),
      3,
    )} ms; ` +
      `concurrent raw ${spread(calls.raw.conc, 0)} / pipeline ${spread(calls.pipe.conc, 0)} / in memory ${spread(calls.mem.conc, 0)} calls/s`,
  );
  console.log(
    `(${ROUNDS} rounds, the side going first turning each round, medians over rounds; warm-up ${WARMUP} sequential + ${WARMUP} concurrent per side; concurrent = ${conc}; ` +
      `SQLite WAL + synchronous=NORMAL in a temp dir, group commit, WAL checkpoints off the call path; history: ${history.completed.toLocaleString('en')} completed + ${history.started.toLocaleString('en')} started records, ` +
      `${HISTORY_SESSIONS} sessions (the GUI's holds ${history.guiRecords.toLocaleString('en')}), 1 in ${TOOL_ERROR_EVERY} a tool error, pages as the History view asks (one session, by status or tool), filled through claim/complete in ${fmt(history.fillMs / 1000, 1)} s; ${process.platform}, ${cpus().length} cores, node ${process.versions.node}, ` +
      `load average at start ${startLoad} / end ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; ` +
      `total ${fmt((performance.now() - started) / 1000, 1)} s)`,
  );
  if (stages) {
    console.log('');
    printTable([
      [`pipeline stage (${CALLS} sequential calls, exclusive time per call)`, 'p50 ms', 'mean ms'],
      ...stages,
    ]);
  }
  console.log(
    JSON.stringify({
      bench: 'pipeline',
      p50_ratio: Number((pipeP50 / rawP50).toFixed(3)),
      p50_added_ms: Number((pipeP50 - rawP50).toFixed(3)),
      p99_ratio: Number((pipeP99 / rawP99).toFixed(3)),
      concurrent_ratio: Number((pipeConc / rawConc).toFixed(3)),
      in_memory_p50_added_ms: Number((memP50 - rawP50).toFixed(3)),
      in_memory_concurrent_ratio: Number((memConc / rawConc).toFixed(3)),
      history_page_ms: Number(pageP50.toFixed(3)),
      ...pinningJson(pinning),
    }),
  );
}

function pinningJson(f: PinningFigures) {
  return {
    pins_list_1000_new_ms: Number(f.listNewMs.toFixed(3)),
    pins_list_1000_relisted_ms: Number(f.listRelistedMs.toFixed(3)),
    pins_list_1000_same_ms: Number(f.listSameMs.toFixed(3)),
    pin_check_us: Number((f.checkNs / 1000).toFixed(4)),
  };
}

runBench(main, closers, work);
