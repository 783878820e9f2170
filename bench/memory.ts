/**
 * Benchmark: the app's resident memory while it serves agents, and whether it grows.
 *
 * The real browser-mode host (`electron/web/cli.ts`, the core as browser mode builds it) in its
 * own process, over a data folder whose checkpoint store was filled BEFORE it started with
 * BENCH_MEMORY_RECORDS History records (claim + complete through the store, as bench/ui-history.ts
 * does); then, set up over the bridge as the GUI would: 20 stdio servers (the repo's fixture server,
 * bundled), an ALLOW rule for each one's `echo`, 5 agents, each connected over HTTP (3 in the 2025
 * era with a session, 2 in the 2026-07-28 stateless era). The GUI stays open: a bridge WebSocket
 * client receives the app's events throughout. Then BENCH_MEMORY_CALLS agent calls (spread over
 * the agents and servers, 16 in flight), the host's RSS (/proc) and V8 heap (over the inspector:
 * `Runtime.getHeapUsage`) read; then as many calls again, read again, and the growth.
 * Run with `node --expose-gc` (e.g. `node --expose-gc --import tsx bench/memory.ts`) to force a
 * full collection in the host (`HeapProfiler.collectGarbage`) before each reading, so that growth
 * is what is kept, not garbage not yet collected.
 *
 * Prints a table, then one JSON line. Run: npm run bench:memory
 * Then BENCH_MEMORY_SESSION_ROUNDS rounds of BENCH_MEMORY_SESSIONS concurrent 2025 sessions (20
 * agents of 25 sessions for 500, at most 100 open at once), one call on each, each session ended; a reading after each round.
 * Env: BENCH_MEMORY_RECORDS (100000), BENCH_MEMORY_CALLS (10000), BENCH_MEMORY_SERVERS (20), BENCH_MEMORY_AGENTS (5),
 * BENCH_MEMORY_SESSION_ROUNDS (16), BENCH_MEMORY_SESSIONS (500).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { hashArguments } from '../electron/checkpoints/hash.js';
import { SqliteCheckpointStore } from '../electron/checkpoints/sqliteStore.js';
import { openAppDatabase } from '../electron/core/database.js';
import type { AgentsView } from '../shared/agents.js';
import type { ServerView } from '../shared/contract.js';
import { buildFixtureServers } from '../test/helpers/buildFixtures.js';
import { stdioFixtureConfig, waitFor } from '../test/helpers/fixtures.js';
import { connectAgent } from '../test/gateway/support.js';
import { HostProcess, ok } from '../test/restart/restartSoak.js';
import { BridgeClient } from '../test/web/host.js';
import { InspectorClient } from './gatewayProfile.js';
import { fmt, printTable, runBench, runConcurrent } from './pipelineHelpers.js';

const RECORDS = Number(process.env.BENCH_MEMORY_RECORDS ?? 100_000);
const CALLS = Number(process.env.BENCH_MEMORY_CALLS ?? 10_000);
const SERVERS = Number(process.env.BENCH_MEMORY_SERVERS ?? 20);
const AGENTS = Number(process.env.BENCH_MEMORY_AGENTS ?? 5);
const IN_FLIGHT = 16;
const SESSION_ROUNDS = Number(process.env.BENCH_MEMORY_SESSION_ROUNDS ?? 16);
const SESSIONS = Number(process.env.BENCH_MEMORY_SESSIONS ?? 500);
const SESSIONS_AT_ONCE = 100;
const FORCE_GC = typeof (globalThis as { gc?: unknown }).gc === 'function';

const work = mkdtempSync(join(tmpdir(), 'mh-bench-memory-'));
const dataDir = join(work, 'data');
const closers: Array<() => Promise<void> | void> = [];

/** Fills the checkpoint store as calls do (claim, then complete), in transactions of 10,000. */
function fillHistory(): number {
  const began = performance.now();
  const db = openAppDatabase(join(dataDir, 'miniharness.db'));
  const store = new SqliteCheckpointStore(db);
  const session = `gui-${new Date(Date.now() - 3_600_000).toISOString().replace(/[:.]/g, '-')}-memory00`;
  for (let from = 0; from < RECORDS; from += 10_000) {
    db.transaction(() => {
      for (let i = from; i < Math.min(RECORDS, from + 10_000); i++) {
        const args = { path: `/workspace/file-${i}.txt`, n: i };
        const claim = store.claim({
          sessionId: session,
          callId: `call-${String(i).padStart(6, '0')}`,
          userId: 'gui',
          toolName: 'read_file',
          serverId: 'local',
          argsHash: hashArguments(args),
          args,
          traceId: `trace-${i}`,
        });
        if (claim.kind !== 'owner') throw new Error('fill: expected a fresh claim');
        store.complete(session, claim.record.callId, claim.lease, {
          content: [{ type: 'text', text: `result of record ${i}: ${'x'.repeat(60)}` }],
          structuredContent: undefined,
          isError: false,
        });
      }
    })();
  }
  db.close();
  return performance.now() - began;
}

/** Resident set size of a process (kB → MB), from /proc. */
function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) / 1024 : NaN;
}

interface Reading {
  rssMb: number;
  /** The database's WAL file: bounded under load only if checkpoints let it start over (walCheckpointer.ts). */
  walMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
}

async function read(host: HostProcess, inspector: InspectorClient): Promise<Reading> {
  if (FORCE_GC) await inspector.send('HeapProfiler.collectGarbage');
  const heap = await inspector.send<{ usedSize: number; totalSize: number }>('Runtime.getHeapUsage');
  return {
    rssMb: rssMb(host.pid),
    walMb: walMb(),
    heapUsedMb: heap.usedSize / 2 ** 20,
    heapTotalMb: heap.totalSize / 2 ** 20,
  };
}

function walMb(): number {
  try {
    return statSync(join(dataDir, 'miniharness.db-wal')).size / 2 ** 20;
  } catch {
    return 0; // no WAL file (yet, or after a clean close)
  }
}

type CallTool = (params: { name: string; arguments: Record<string, unknown> }) => Promise<CallToolResult>;

async function main(): Promise<void> {
  const started = performance.now();
  await buildFixtureServers();
  const fillMs = fillHistory();
  const token = randomBytes(24).toString('base64url');
  const host = await HostProcess.start(
    dataDir,
    token,
    ['--gateway-port', '0', '--workspace', join(work, 'workspace')],
    ['--inspect=0'],
  );
  closers.push(async () => void (await host.stop('SIGTERM')));
  const inspector = await InspectorClient.connect(host.output());
  closers.push(() => inspector.close());
  await inspector.send('Runtime.enable');
  const idle = await read(host, inspector);

  // The GUI: connected for the whole run, receiving every event (its buffer emptied as it goes).
  const gui = await BridgeClient.connect(host.port, { token });
  closers.push(() => gui.close());
  const serverIds = Array.from({ length: SERVERS }, (_, i) => `fixture${String(i).padStart(2, '0')}`);
  for (const id of serverIds) await ok(gui, 'servers.save', { mode: 'create', config: stdioFixtureConfig(id) });
  await waitFor(
    async () =>
      (await ok<ServerView[]>(gui, 'servers.list', {})).filter((s) => s.status.state === 'ready' && s.toolCount > 0)
        .length === SERVERS,
    120_000,
    200,
  );
  for (const id of serverIds)
    await ok(gui, 'permissions.setToolLevel', { serverId: id, toolName: 'echo', level: 'ALLOW' });

  const agents: CallTool[] = [];
  for (let a = 0; a < AGENTS; a++) {
    const { token: agentToken } = await ok<{ token: string }>(gui, 'agents.create', {
      name: `memory-agent-${a}`,
      visibility: { allServers: true, serverIds: [], localTools: false },
    });
    const url = new URL((await ok<AgentsView>(gui, 'agents.list', {})).gateway.url);
    if (a % 5 < 3) {
      const client = await connectAgent(url, agentToken, `memory-agent-${a}`);
      closers.push(() => client.close());
      agents.push(async (params) => (await client.callTool(params)) as CallToolResult);
    } else {
      const client = new ModernClient(
        { name: `memory-agent-${a}`, version: '0.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await client.connect(
        new ModernHttp(url, { requestInit: { headers: { Authorization: `Bearer ${agentToken}` } } }),
      );
      if (client.getNegotiatedProtocolVersion() !== '2026-07-28')
        throw new Error(`agent ${a}: negotiated ${client.getNegotiatedProtocolVersion()}, not 2026-07-28`);
      closers.push(() => client.close());
      agents.push(async (params) => (await client.callTool(params)) as CallToolResult);
    }
  }
  const ready = await read(host, inspector);

  const call = async (i: number): Promise<void> => {
    const text = `memory #${i}`;
    const result = await agents[i % AGENTS]!({ name: `${serverIds[i % SERVERS]}__echo`, arguments: { text } });
    const first = result.content[0] as { text?: string } | undefined;
    if (result.isError || first?.text !== text)
      throw new Error(`call ${i} answered ${JSON.stringify(result).slice(0, 300)}`);
    if (i % 1000 === 0) gui.events.length = 0;
  };
  let t0 = performance.now();
  const firstRate = await runConcurrent(call, CALLS, 0, IN_FLIGHT);
  const firstSeconds = (performance.now() - t0) / 1000;
  const after1 = await read(host, inspector);
  t0 = performance.now();
  const secondRate = await runConcurrent(call, CALLS, CALLS, IN_FLIGHT);
  const secondSeconds = (performance.now() - t0) / 1000;
  const after2 = await read(host, inspector);
  const guiEvents = gui.events.length;

  // Rounds of many concurrent 2025 sessions (issue 28.9: RSS rose about 19 MiB a round of 500): each
  // round opens SESSIONS sessions at once, spread over agents within their limit of 32 sessions,
  // makes one call on each and ends it; then a reading. Bounded if RSS levels off and heapUsed stays flat.
  const roundRows: string[][] = [];
  const roundReadings: Reading[] = [];
  if (SESSION_ROUNDS > 0) {
    const url = new URL((await ok<AgentsView>(gui, 'agents.list', {})).gateway.url);
    const perAgent = 25;
    const tokens: string[] = [];
    for (let a = 0; a < Math.ceil(SESSIONS / perAgent); a++)
      tokens.push(
        (
          await ok<{ token: string }>(gui, 'agents.create', {
            name: `memory-sessions-${a}`,
            visibility: { allServers: true, serverIds: [], localTools: false },
          })
        ).token,
      );
    const before = await read(host, inspector);
    roundRows.push(['before the session rounds', ...cells(before)]);
    for (let round = 1; round <= SESSION_ROUNDS; round++) {
      const began = performance.now();
      // At most SESSIONS_AT_ONCE at a time: each 2025 session also holds its GET stream, and the client keeps ended sessions’ sockets alive a while; 500 at once passed the connection cap (512).
      await runConcurrent(
        async (i) => {
          const client = await connectAgent(url, tokens[Math.floor(i / perAgent)]!, `memory-session-${i}`);
          try {
            await client.callTool({ name: `${serverIds[i % SERVERS]}__echo`, arguments: { text: `round ${round}` } });
          } finally {
            // Ends the session (DELETE), as a client that exits cleanly does.
            await (client.transport as { terminateSession?: () => Promise<void> } | undefined)?.terminateSession?.();
            await client.close();
          }
        },
        SESSIONS,
        0,
        SESSIONS_AT_ONCE,
      );
      gui.events.length = 0;
      const reading = await read(host, inspector);
      roundReadings.push(reading);
      roundRows.push([`after round ${round} (${fmt((performance.now() - began) / 1000, 1)} s)`, ...cells(reading)]);
    }
  }

  // Bounded, not leaking: what the rounds' second half adds per round (issue 28.9) — a slope near
  // zero once the first rounds have grown the allocator's arenas and the bounded buffers.
  const secondHalf =
    roundReadings.length >= 4 ? slopes(roundReadings.slice(Math.floor(roundReadings.length / 2))) : undefined;

  function cells(r: Reading): string[] {
    return [fmt(r.rssMb, 1), fmt(r.heapUsedMb, 1), fmt(r.heapTotalMb, 1), fmt(r.walMb, 1)];
  }
  const row = (label: string, r: Reading) => [
    label,
    fmt(r.rssMb, 1),
    fmt(r.heapUsedMb, 1),
    fmt(r.heapTotalMb, 1),
    fmt(r.walMb, 1),
  ];
  printTable([
    ['the app process (browser-mode host)', 'RSS MB', 'heapUsed MB', 'heapTotal MB', 'WAL file MB'],
    row(`idle, ${RECORDS.toLocaleString('en')} History records, no server yet`, idle),
    row(`${SERVERS} servers ready, ${AGENTS} agents connected, GUI open`, ready),
    row(
      `after ${CALLS.toLocaleString('en')} agent calls (${fmt(firstSeconds, 1)} s, ${fmt(firstRate, 0)} calls/s)`,
      after1,
    ),
    row(
      `after ${(2 * CALLS).toLocaleString('en')} agent calls (${fmt(secondSeconds, 1)} s, ${fmt(secondRate, 0)} calls/s)`,
      after2,
    ),
    [
      'growth over the second ' + CALLS.toLocaleString('en'),
      fmt(after2.rssMb - after1.rssMb, 1),
      fmt(after2.heapUsedMb - after1.heapUsedMb, 1),
      fmt(after2.heapTotalMb - after1.heapTotalMb, 1),
      fmt(after2.walMb - after1.walMb, 1),
    ],
  ]);
  if (roundRows.length > 0) {
    console.log(`\n${SESSION_ROUNDS} rounds of ${SESSIONS} concurrent 2025 sessions (one call each, then ended):`);
    printTable([['', 'RSS MB', 'heapUsed MB', 'heapTotal MB', 'WAL file MB'], ...roundRows]);
    if (secondHalf)
      console.log(
        `over the second half of the rounds (${secondHalf.rounds} rounds): RSS ${fmt(secondHalf.rssMbPerRound, 2)} MB a round, ` +
          `heapUsed ${fmt(secondHalf.heapMbPerRound, 2)} MB a round (least-squares slope; each server's Log keeps its last 500–1,000 lines, ` +
          `so heapUsed grows by those lines until every server's Log is full, then stops)`,
      );
  }
  console.log(
    `(${FORCE_GC ? 'a full collection forced in the host before each reading' : 'no forced collection (run with node --expose-gc for one before each reading)'}; ` +
      `History filled in ${fmt(fillMs / 1000, 1)} s; ${AGENTS} agents (${Math.min(3, AGENTS)} 2025 sessions, ${Math.max(0, AGENTS - 3)} 2026-07-28 stateless), ${IN_FLIGHT} calls in flight, ` +
      `each allowed by a rule, checkpointed and traced; the GUI's bridge client got ${guiEvents} events since its last emptying; ` +
      `${process.platform}, ${cpus().length} cores, node ${process.versions.node}; total ${fmt((performance.now() - started) / 1000, 1)} s)`,
  );
  const mb = (v: number) => Number(v.toFixed(1));
  console.log(
    JSON.stringify({
      bench: 'memory',
      forced_gc: FORCE_GC,
      records: RECORDS,
      servers: SERVERS,
      agents: AGENTS,
      calls_per_phase: CALLS,
      rss_mb_after_first: mb(after1.rssMb),
      heap_used_mb_after_first: mb(after1.heapUsedMb),
      rss_mb_after_second: mb(after2.rssMb),
      heap_used_mb_after_second: mb(after2.heapUsedMb),
      rss_growth_mb: mb(after2.rssMb - after1.rssMb),
      heap_used_growth_mb: mb(after2.heapUsedMb - after1.heapUsedMb),
      ...(secondHalf
        ? {
            rounds_second_half_rss_mb_per_round: Number(secondHalf.rssMbPerRound.toFixed(2)),
            rounds_second_half_heap_used_mb_per_round: Number(secondHalf.heapMbPerRound.toFixed(2)),
          }
        : {}),
      wal_mb_after_first: mb(after1.walMb),
      wal_mb_after_second: mb(after2.walMb),
      session_rounds: roundReadings.map((r) => ({ rss_mb: mb(r.rssMb), heap_used_mb: mb(r.heapUsedMb) })),
    }),
  );
}

runBench(main, closers, work);

/** Least-squares slopes, per reading, of RSS and heapUsed over `readings` (one per round). */
function slopes(readings: Reading[]): { rounds: number; rssMbPerRound: number; heapMbPerRound: number } {
  const n = readings.length;
  const meanX = (n - 1) / 2;
  const slope = (values: number[]): number => {
    const meanY = values.reduce((a, b) => a + b, 0) / n;
    let num = 0;
    let den = 0;
    values.forEach((y, x) => {
      num += (x - meanX) * (y - meanY);
      den += (x - meanX) ** 2;
    });
    return num / den;
  };
  return {
    rounds: n,
    rssMbPerRound: slope(readings.map((r) => r.rssMb)),
    heapMbPerRound: slope(readings.map((r) => r.heapUsedMb)),
  };
}
