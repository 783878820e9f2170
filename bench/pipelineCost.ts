/**
 * Benchmark: what one pipeline call costs, in figures that do not move with the machine's load.
 *
 * bench:pipeline's latency and throughput ratios swing with whatever else runs on a shared
 * machine; these do not (much): CPU time of this process per call (process.cpuUsage: user +
 * system, every thread of the process, the WAL checkpoint worker's included) and the WAL frames
 * the calls append to the database file.
 *
 * - CPU µs per call: BENCH_ROUNDS rounds of a burst of BENCH_CALLS concurrent calls, and of as
 *   many sequential calls, for the raw SDK client (`callTool('echo')` on the stdio fixture) and
 *   for `HarnessApplication.executeTool('echo')` (ALLOW rule, SQLite file with the app's
 *   settings, checkpoints and traces) — medians over rounds; the difference is the pipeline's own.
 * - WAL frames per call: over BENCH_CALLS sequential calls, the WAL index's last frame (the -shm
 *   file's `mxFrame`) read after each call, the WAL's restarts (its header's checkpoint sequence)
 *   accounted for; then a flush, so the trace batches still waiting count too. A frame is one
 *   page (4 KiB) plus its 24-byte header.
 *
 * `-- --alloc`: instead, the bytes each function allocates per concurrent call (V8's sampling heap
 * profiler, garbage included), pipeline then raw client.
 *
 * Runs as the app is built (bench/asBuilt: esbuild without tsx's keepNames, whose `__name` call on
 * every closure a call creates the built app does not make).
 *
 * Prints a table, then one JSON line. Run: npm run bench:pipeline-cost
 * Knobs (env): BENCH_CALLS (1000), BENCH_WARMUP (300), BENCH_ROUNDS (5).
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { Session } from 'node:inspector/promises';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createPipeline } from '../electron/harness/createPipeline.js';
import { DefaultSecretResolver } from '../electron/secrets/resolver.js';
import { openAppDatabase } from '../electron/core/database.js';
import { createLocalTools } from '../electron/tools/localTools.js';
import { endSandboxSession } from '../electron/sandbox/serverSandbox.js';
import { buildFixtureServers } from '../test/helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, stdioFixtureConfig } from '../test/helpers/fixtures.js';
import { testSandboxes } from '../test/helpers/sandboxes.js';
import type { Caller } from './pipelineHelpers.js';
import {
  InMemoryRuleStore,
  fmt,
  median,
  printTable,
  runBench,
  runConcurrent,
  runSequential,
} from './pipelineHelpers.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SERVER_ID = 'fx';

EventEmitter.defaultMaxListeners = Math.max(EventEmitter.defaultMaxListeners, CALLS + WARMUP + 100);

const work = mkdtempSync(join(tmpdir(), 'mh-bench-pipeline-cost-'));
const closers: Array<() => Promise<void> | void> = [() => endSandboxSession()];

function expectEcho(content: unknown, text: string): void {
  const first = Array.isArray(content) ? (content[0] as { text?: unknown } | undefined) : undefined;
  if (first?.text !== text) throw new Error(`echo answered ${JSON.stringify(content)}, expected "${text}"`);
}

async function rawCaller(): Promise<Caller> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BUILT_STDIO_FIXTURE],
    cwd: PROJECT_ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'bench-raw', version: '0.0.0' }, { capabilities: {} });
  await client.connect(transport);
  closers.push(() => client.close());
  await client.listTools();
  return async (i) => {
    const text = `hello #${i}`;
    expectEcho((await client.callTool({ name: 'echo', arguments: { text } })).content, text);
  };
}

async function pipelineCaller(): Promise<{ call: Caller; file: string; flush: () => void }> {
  const root = join(work, 'root');
  mkdirSync(root, { recursive: true });
  const file = join(work, 'harness.db');
  const db = openAppDatabase(file);
  const { harness, registry, engine, tracer } = await createPipeline({
    db,
    secrets: new DefaultSecretResolver(),
    registry: { sandboxes: testSandboxes() },
    rules: new InMemoryRuleStore(),
    requestApproval: () => Promise.reject(new Error('bench: no approval was expected')),
    approvalTimeoutMs: 5_000,
    localTools: createLocalTools({ roots: [root], command: { timeoutMs: 5_000 } }),
  });
  closers.push(() => {
    tracer.flush();
    db.close();
  });
  closers.push(() => registry.close());
  await engine.addRule({ level: 'ALLOW', match: { serverId: SERVER_ID }, note: 'bench' });
  registry.addServer(stdioFixtureConfig(SERVER_ID));
  if ((await registry.discover()).servers[SERVER_ID]?.status.state !== 'ready') throw new Error('fixture not ready');
  const user = { userId: 'bench-user', sessionId: 'bench-session' };
  const call: Caller = async (i) => {
    const text = `hello #${i}`;
    const out = await harness.executeTool('echo', { text }, { ...user, callId: `c-${i}` });
    if (out.replayed) throw new Error('pipeline: replayed');
    expectEcho(out.result.content, text);
  };
  return { call, file, flush: () => tracer.flush() };
}

/** CPU of this process (µs) per call of `run`'s `count` calls. */
async function cpuPerCall(run: () => Promise<unknown>, count: number): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/** Reads the WAL index's last valid frame and the WAL header's checkpoint sequence. */
function walPosition(file: string): { frame: number; checkpoint: number } {
  const read = (path: string, offset: number, length: number): Buffer => {
    const buffer = Buffer.alloc(length);
    const fd = openSync(path, 'r');
    try {
      readSync(fd, buffer, 0, length, offset);
    } finally {
      closeSync(fd);
    }
    return buffer;
  };
  // -shm: WalIndexHdr.mxFrame (u32, native order) at 16; -wal: checkpoint sequence (u32, big-endian) at 12.
  return { frame: read(`${file}-shm`, 16, 4).readUInt32LE(0), checkpoint: read(`${file}-wal`, 12, 4).readUInt32BE(0) };
}

async function walFramesPerCall(call: Caller, flush: () => void, file: string, first: number): Promise<number> {
  let frames = 0;
  let last = walPosition(file);
  const step = (): void => {
    const now = walPosition(file);
    // A restart begins the WAL again at frame 1: the frames written since are all of now.frame.
    frames += now.checkpoint === last.checkpoint ? now.frame - last.frame : now.frame;
    last = now;
  };
  for (let i = 0; i < CALLS; i++) {
    await call(first + i);
    step();
  }
  flush();
  step();
  return frames / CALLS;
}

interface AllocationNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocationNode[];
}

/**
 * `--alloc`: V8's sampling heap profile over `count` calls (garbage included), bytes per call by
 * allocating function, the top `top` — where the young generation's collections come from.
 */
async function allocationsPerCall(run: () => Promise<unknown>, count: number, top = 30): Promise<string[][]> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await run();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: AllocationNode } };
  session.disconnect();
  const bySite = new Map<string, number>();
  let total = 0;
  // By the nearest project function up the stack (its own allocations and those of what it called).
  const visit = (node: AllocationNode, project: string | undefined): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'}  ${url.replace(/^.*\/(electron|node_modules|bench)\//, '$1/')}:${lineNumber + 1}`;
    const own = url.includes('/electron/') ? site : project;
    const key = own ?? site;
    bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) visit(child, own);
  };
  visit(profile.head, undefined);
  const rows = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    ['nearest project function allocating (sampled, garbage included; else the function)', 'bytes/call'],
    ['(all)', fmt(total / count, 0)],
    ...rows.map(([site, bytes]) => [site.slice(0, 110), fmt(bytes / count, 0)]),
  ];
}

async function main(): Promise<void> {
  await buildFixtureServers();
  const startLoad = loadavg()[0]!.toFixed(2);
  const raw = await rawCaller();
  const pipe = await pipelineCaller();
  let next = 0;
  const take = (n: number) => (next += n) - n;
  for (const call of [raw, pipe.call]) {
    await runSequential(call, WARMUP, take(WARMUP));
    await runConcurrent(call, WARMUP, take(WARMUP), 'burst');
  }
  if (process.argv.includes('--alloc')) {
    printTable(await allocationsPerCall(() => runConcurrent(pipe.call, CALLS, take(CALLS), 'burst'), CALLS));
    console.log('');
    printTable(await allocationsPerCall(() => runConcurrent(raw, CALLS, take(CALLS), 'burst'), CALLS, 8));
    return;
  }
  const figures = {
    rawConc: [] as number[],
    pipeConc: [] as number[],
    rawSeq: [] as number[],
    pipeSeq: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['raw', 'pipe'] as const) : (['pipe', 'raw'] as const);
    for (const side of order) {
      const call = side === 'raw' ? raw : pipe.call;
      const conc = await cpuPerCall(() => runConcurrent(call, CALLS, take(CALLS), 'burst'), CALLS);
      const seq = await cpuPerCall(() => runSequential(call, CALLS, take(CALLS)), CALLS);
      figures[side === 'raw' ? 'rawConc' : 'pipeConc'].push(conc);
      figures[side === 'raw' ? 'rawSeq' : 'pipeSeq'].push(seq);
    }
  }
  const frames = await walFramesPerCall(pipe.call, pipe.flush, pipe.file, take(CALLS));
  const f = {
    rawConc: median(figures.rawConc),
    pipeConc: median(figures.pipeConc),
    rawSeq: median(figures.rawSeq),
    pipeSeq: median(figures.pipeSeq),
  };
  printTable([
    ['CPU of this process per call (µs, median of rounds)', 'raw SDK', 'pipeline', 'pipeline − raw'],
    [`burst of ${CALLS} concurrent`, fmt(f.rawConc, 1), fmt(f.pipeConc, 1), fmt(f.pipeConc - f.rawConc, 1)],
    [`${CALLS} sequential`, fmt(f.rawSeq, 1), fmt(f.pipeSeq, 1), fmt(f.pipeSeq - f.rawSeq, 1)],
  ]);
  console.log(
    `WAL frames per sequential call: ${fmt(frames, 2)} (${fmt((frames * 4120) / 1024, 1)} KiB)  ` +
      `(${ROUNDS} rounds; ${cpus().length} cores, node ${process.versions.node}, load ${startLoad} → ${loadavg()[0]!.toFixed(2)})`,
  );
  console.log(
    JSON.stringify({
      bench: 'pipeline-cost',
      raw_conc_cpu_us: Number(f.rawConc.toFixed(1)),
      pipe_conc_cpu_us: Number(f.pipeConc.toFixed(1)),
      raw_seq_cpu_us: Number(f.rawSeq.toFixed(1)),
      pipe_seq_cpu_us: Number(f.pipeSeq.toFixed(1)),
      wal_frames_per_call: Number(frames.toFixed(2)),
    }),
  );
}

runBench(main, closers, work);
