/**
 * Benchmark: what the agent gateway adds to a tool call, for agents of both protocol eras.
 *
 * One server, `@modelcontextprotocol/server-everything` over stdio, and its `echo` tool, called
 * five ways in the same run, by the official SDK `Client` as the agent:
 * - direct: over `StdioClientTransport`, spawning server-everything;
 * - floor, legacy: a v1 Client (2025 era, a session) over Streamable HTTP to the thinnest SDK
 *   proxy of that era in front of the same server (bench/httpFloor.ts `--era legacy`) — what the
 *   HTTP hop costs;
 * - gateway, legacy: the same v1 Client to the agent gateway of the real app — the browser-mode
 *   host (`electron/web/cli.ts`) in its own process —, with server-everything configured in the
 *   app, an ALLOW rule for `echo` (no approval) and each call's `_meta` callId checkpointed
 *   durably in SQLite (WAL) and traced;
 * - floor, modern: a v2 Client negotiating (`auto`, it ends on 2026-07-28, stateless) to v2's
 *   bare per-request handler proxying the same server (bench/httpFloor.ts `--era modern`);
 * - gateway, modern: the same v2 Client to the same gateway (its stateless 2026-07-28 leg).
 * Agent, middle and server are separate processes, as in use; no GUI page is connected while
 * measuring. Each side: a warm-up, then per round N sequential calls (p50/p99 from
 * performance.now per call) and N calls with C in flight (throughput), with the CPU time each
 * process spent (/proc), which a busy shared machine does not inflate the way it inflates wall
 * time. The order of the sides turns each round; the figures are medians over rounds.
 *
 * BENCH_PROFILE=1 starts the host with `--inspect=0` and, after the rounds, profiles it over a
 * window of sequential calls and one of concurrent calls: where the app's time goes, by part
 * (bench/gatewayProfile.ts). BENCH_FLOOR_JSON=1 adds a floor whose transport answers with JSON
 * bodies instead of SSE streams.
 *
 * Prints a table, then one JSON line. Run: npm run bench:gateway
 * Knobs (env): BENCH_CALLS (500), BENCH_WARMUP (200), BENCH_ROUNDS (3), BENCH_IN_FLIGHT (16),
 * BENCH_PROFILE=1, BENCH_PROFILE_CALLS (2000), BENCH_PROFILE_DIR (also write the .cpuprofile
 * files there), BENCH_FLOOR_JSON=1.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentsView } from '../shared/agents.js';
import { META_CALL_ID, META_REPLAYED, META_TRACE_ID } from '../shared/agents.js';
import type { ServerView } from '../shared/contract.js';
import type { TraceDetail } from '../shared/traces.js';
import { PROJECT_ROOT, waitFor } from '../test/helpers/fixtures.js';
import { connectAgent } from '../test/gateway/support.js';
import { HostProcess, ok } from '../test/restart/restartSoak.js';
import { BridgeClient } from '../test/web/host.js';
import type { CpuProfile, ProfileSummary } from './gatewayProfile.js';
import { InspectorClient, summarize } from './gatewayProfile.js';
import type { Caller, SequentialResult } from './pipelineHelpers.js';
import { CpuMeter, childPids } from './processCpu.js';
import { fmt, median, printTable, runBench, runConcurrent, runSequential } from './pipelineHelpers.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);
const PROFILE = process.env.BENCH_PROFILE === '1';
const PROFILE_CALLS = Number(process.env.BENCH_PROFILE_CALLS ?? 2000);
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
const FLOOR_JSON = process.env.BENCH_FLOOR_JSON === '1';

const SERVER_ID = 'everything';
const TOOL = `${SERVER_ID}__echo`;

// The SDK's HTTP client gives every fetch one shared AbortSignal, and undici lets go of its
// listener on it only when the request is garbage-collected: thousands of calls in a row trip
// Node's leak warning in this process (the agent's side). Said once here, not thousands of times.
process.removeAllListeners('warning');
let listenerWarningSeen = false;
process.on('warning', (warning) => {
  if (warning.name === 'MaxListenersExceededWarning') {
    if (!listenerWarningSeen) console.error('(the agent’s SDK HTTP client piles up abort listeners between collections: Node’s MaxListenersExceededWarning, not shown again)');
    listenerWarningSeen = true;
    return;
  }
  console.error(`${warning.name}: ${warning.message}`);
});

const work = mkdtempSync(join(tmpdir(), 'mh-bench-gateway-'));
/** Everything to close at the end, newest first (also on failure). */
const closers: Array<() => Promise<void> | void> = [];

/** server-everything's own entry (its package "bin"), started with `stdio`. */
function everythingEntry(): string[] {
  const dir = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything');
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
  const bin = Object.values(pkg.bin)[0];
  if (!bin) throw new Error('server-everything declares no bin');
  return [join(dir, bin), 'stdio'];
}

function checkEcho(result: CallToolResult, message: string): void {
  const first = result.content[0] as { type?: string; text?: string } | undefined;
  if (result.isError || first?.type !== 'text' || first.text !== `Echo: ${message}`) throw new Error(`echo answered ${JSON.stringify(result)}`);
}

// ── the two callers ──────────────────────────────────────────────────────────────────────────

interface Side {
  call: Caller;
  /** CPU of the agent (this process, `self`), and of `app` and `server` where they exist. */
  cpu: CpuMeter;
}

async function directCaller(): Promise<Side> {
  const transport = new StdioClientTransport({ command: process.execPath, args: everythingEntry(), cwd: PROJECT_ROOT, stderr: 'pipe' });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'bench-direct', version: '0.0.0' });
  await client.connect(transport);
  closers.push(() => client.close());
  const { tools } = await client.listTools();
  if (!tools.some((t) => t.name === 'echo')) throw new Error('direct: server-everything offers no echo tool');
  const call: Caller = async (i) => {
    const message = `hello #${i}`;
    checkEcho((await client.callTool({ name: 'echo', arguments: { message } })) as CallToolResult, message);
  };
  return { call, cpu: new CpuMeter({ server: transport.pid ? [transport.pid] : [] }) };
}

type Era = 'legacy' | 'modern';

/** An agent of `era` over Streamable HTTP: a v1 Client (the 2025 handshake) or a v2 Client negotiating (it must end modern). */
async function httpAgent(era: Era, url: URL, name: string, token?: string): Promise<{ callTool(params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> }): Promise<CallToolResult>; close(): Promise<void> }> {
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  if (era === 'legacy') {
    const client = new Client({ name, version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, requestInit ? { requestInit } : {}));
    return { callTool: async (params) => (await client.callTool(params)) as CallToolResult, close: () => client.close() };
  }
  const client = new ModernClient({ name, version: '0.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new ModernHttp(url, requestInit ? { requestInit } : {}));
  if (client.getNegotiatedProtocolVersion() !== '2026-07-28') throw new Error(`${name}: the v2 client ended on ${client.getNegotiatedProtocolVersion()}, not 2026-07-28`);
  return { callTool: async (params) => (await client.callTool(params)) as CallToolResult, close: () => client.close() };
}

/** The floor proxy of `era` (bench/httpFloor.ts) as its own process, and the agent of that era over HTTP to it. */
async function floorCaller(json: boolean, era: Era = 'legacy'): Promise<Side> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'bench', 'httpFloor.ts'), '--era', era, ...(json ? ['--json'] : []), '--', process.execPath, ...everythingEntry()], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  closers.push(() => void child.kill('SIGTERM'));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /floor listening on (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the floor proxy exited (${code})`)));
  });
  const client = await httpAgent(era, new URL(`http://127.0.0.1:${port}/mcp`), `bench-floor-${era}`);
  closers.push(() => client.close());
  const call: Caller = async (i) => {
    const message = `hello #${i}`;
    checkEcho(await client.callTool({ name: 'echo', arguments: { message } }), message);
  };
  return { call, cpu: new CpuMeter({ app: [child.pid!], server: childPids(child.pid!) }) };
}

interface GatewaySide extends Side {
  host: HostProcess;
  /** The same app, called by an agent of the modern era. */
  modern: Side;
}

/** The app as its own process; set up over the bridge as the GUI would, which then disconnects. */
async function gatewayCaller(): Promise<GatewaySide> {
  const token = randomBytes(24).toString('base64url');
  const host = await HostProcess.start(join(work, 'data'), token, ['--gateway-port', '0', '--workspace', join(work, 'workspace')], PROFILE ? ['--inspect=0'] : []);
  closers.push(async () => void (await host.stop('SIGTERM')));
  const bridge = await BridgeClient.connect(host.port, { token });
  try {
    await ok(bridge, 'servers.save', {
      mode: 'create',
      config: { id: SERVER_ID, name: 'Everything', transport: 'stdio', command: process.execPath, args: everythingEntry(), cwd: PROJECT_ROOT },
    });
    await waitFor(async () => (await ok<ServerView[]>(bridge, 'servers.list', {})).some((s) => s.config.id === SERVER_ID && s.status.state === 'ready' && s.toolCount > 0), 60_000, 100);
    await ok(bridge, 'permissions.setToolLevel', { serverId: SERVER_ID, toolName: 'echo', level: 'ALLOW' });
    const { token: agentToken } = await ok<{ token: string }>(bridge, 'agents.create', { name: 'bench-agent', visibility: { allServers: true, serverIds: [], localTools: false } });
    const url = new URL((await ok<AgentsView>(bridge, 'agents.list', {})).gateway.url);
    const client = await connectAgent(url, agentToken, 'bench-gateway');
    closers.push(() => client.close());
    if (!(await client.listTools()).tools.some((t) => t.name === TOOL)) throw new Error(`gateway: no ${TOOL} listed`);
    const modernClient = await httpAgent('modern', url, 'bench-gateway-modern', agentToken);
    closers.push(() => modernClient.close());

    const callAs = async (agent: { callTool: (typeof modernClient)['callTool'] }, prefix: string, i: number): Promise<CallToolResult> => {
      const message = `hello #${i}`;
      const result = await agent.callTool({ name: TOOL, arguments: { message }, _meta: { [META_CALL_ID]: `${prefix}-${i}` } });
      checkEcho(result, message);
      if ((result._meta as Record<string, unknown> | undefined)?.[META_REPLAYED] !== false) throw new Error('gateway: the call was replayed, not run');
      return result;
    };
    const call = (i: number): Promise<CallToolResult> => callAs({ callTool: async (params) => (await client.callTool(params)) as CallToolResult }, 'bench', i);
    const modernCall: Caller = async (i) => void (await callAs(modernClient, 'bench-modern', i));
    // The first call must be allowed by the rule, claimed, run once and completed.
    const first = await call(-1);
    const traceId = (first._meta as Record<string, unknown>)[META_TRACE_ID] as string;
    const detail = await ok<TraceDetail>(bridge, 'traces.get', { traceId });
    const types = detail.events.map((e) => e.type).join(',');
    const decision = detail.events.find((e) => e.type === 'decision')?.data as { outcome?: string; kind?: string } | undefined;
    if (detail.trace.status !== 'ok' || decision?.outcome !== 'allow' || decision.kind !== 'rule' || types !== 'decision,claim,attempt_started,attempt_finished,completed') {
      throw new Error(`gateway: the call was not allowed by the rule and checkpointed (status ${detail.trace.status}, events ${types})`);
    }
    // The host's children: server-everything (started by the app's registry).
    const cpu = (): CpuMeter => new CpuMeter({ app: [host.pid], server: childPids(host.pid) });
    return { call: async (i) => void (await call(i)), host, cpu: cpu(), modern: { call: modernCall, cpu: cpu() } };
  } finally {
    bridge.close();
  }
}

// ── the profile (BENCH_PROFILE=1) ────────────────────────────────────────────────────────────

/** The profile's shares of the app's busy time, scaled to the app's CPU per call measured over the same window. */
function profileRows(title: string, summary: ProfileSummary, appCpuMs: number | undefined, calls: number): string[][] {
  const busy = summary.categories.reduce((sum, [, ms]) => sum + ms, 0) + summary.gcMs;
  const perCall = (ms: number) => (appCpuMs === undefined ? '–' : fmt(((ms / busy) * appCpuMs * 1000) / calls, 1));
  const share = (ms: number) => `${fmt((100 * ms) / busy, 1)}%`;
  return [
    [title, 'share of busy', 'CPU µs/call'],
    ...summary.categories.map(([name, ms]) => [`  ${name}`, share(ms), perCall(ms)]),
    ['  garbage collection', share(summary.gcMs), perCall(summary.gcMs)],
    ['= the app process, all of it', '100%', perCall(busy)],
  ];
}

async function profileHost(side: GatewaySide, next: number): Promise<void> {
  const inspector = await InspectorClient.connect(side.host.output());
  try {
    let sequentialProfile: CpuProfile | undefined;
    let concurrentProfile: CpuProfile | undefined;
    const sequentialCpu = await side.cpu.measure(async () => {
      sequentialProfile = await inspector.profile(async () => void (await runSequential(side.call, PROFILE_CALLS, next)));
    });
    const concurrentCpu = await side.cpu.measure(async () => {
      concurrentProfile = await inspector.profile(async () => void (await runConcurrent(side.call, PROFILE_CALLS, next + PROFILE_CALLS, IN_FLIGHT)));
    });
    if (PROFILE_DIR) {
      // Open in Chrome DevTools (Performance) or speedscope.
      writeFileSync(join(PROFILE_DIR, 'gateway-sequential.cpuprofile'), JSON.stringify(sequentialProfile));
      writeFileSync(join(PROFILE_DIR, 'gateway-concurrent.cpuprofile'), JSON.stringify(concurrentProfile));
    }
    const sequential = summarize(sequentialProfile!);
    const concurrent = summarize(concurrentProfile!);
    console.log('');
    printTable([
      ...profileRows(`app process, ${PROFILE_CALLS} sequential gateway calls (sampled every 100 µs)`, sequential, sequentialCpu.app, PROFILE_CALLS),
      ['', '', ''],
      ...profileRows(`app process, ${PROFILE_CALLS} calls, ${IN_FLIGHT} in flight`, concurrent, concurrentCpu.app, PROFILE_CALLS),
    ]);
    console.log(
      `(sampled: busy ${fmt(sequential.wallMs - sequential.idleMs, 0)} of ${fmt(sequential.wallMs, 0)} ms wall sequential, ${fmt(concurrent.wallMs - concurrent.idleMs, 0)} of ${fmt(concurrent.wallMs, 0)} ms concurrent; ` +
        'a busy machine inflates sampled time while the thread waits for a CPU, so shares are scaled to the CPU time /proc reports)',
    );
    console.log('');
    printTable([
      ['functions with the most self time, sequential (native callees included)', 'share of busy'],
      ...sequential.functions.map(([name, ms]) => [`  ${name}`, `${fmt((100 * ms) / (sequential.wallMs - sequential.idleMs), 1)}%`]),
    ]);
  } finally {
    inspector.close();
  }
}

// ── main ─────────────────────────────────────────────────────────────────────────────────────

type CpuSpent = Record<string, number | undefined>;

interface Measured extends Side {
  label: string;
  next: number;
  seq: SequentialResult[];
  conc: number[];
  seqCpu: CpuSpent[];
  concCpu: CpuSpent[];
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg();
  const gateway = await gatewayCaller();
  const measured = (label: string, side: Side): Measured => ({ ...side, label, next: 0, seq: [], conc: [], seqCpu: [], concCpu: [] });
  const direct = measured('direct: SDK Client → server-everything (stdio)', await directCaller());
  const floor = measured('floor: v1 Client (2025) → bare v1 proxy (HTTP, session) → server-everything', await floorCaller(false));
  const floorJson = FLOOR_JSON ? measured('floor, JSON responses (enableJsonResponse)', await floorCaller(true)) : undefined;
  const gw = measured('gateway: v1 Client (2025) → MiniHarness (HTTP, session) → server-everything', gateway);
  const floorModern = measured('floor-modern: v2 Client (2026-07-28) → bare v2 handler (HTTP, stateless) → server-everything', await floorCaller(false, 'modern'));
  const gwModern = measured('gateway-modern: v2 Client (2026-07-28) → MiniHarness (HTTP, stateless) → server-everything', gateway.modern);
  const sides = [direct, floor, ...(floorJson ? [floorJson] : []), gw, floorModern, gwModern];
  const take = (side: Measured, n: number): number => {
    const first = side.next;
    side.next += n;
    return first;
  };

  // Warm-up: JIT in every process, SQLite statement caches, connection pools.
  for (const side of sides) {
    await runSequential(side.call, WARMUP, take(side, WARMUP));
    await runConcurrent(side.call, WARMUP, take(side, WARMUP), IN_FLIGHT);
  }
  for (let round = 0; round < ROUNDS; round++) {
    // The order turns each round, so drift (heat, WAL growth, the machine's load) hits every side alike.
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    for (const side of order) side.seqCpu.push(await side.cpu.measure(async () => void side.seq.push(await runSequential(side.call, CALLS, take(side, CALLS)))));
    for (const side of order) side.concCpu.push(await side.cpu.measure(async () => void side.conc.push(await runConcurrent(side.call, CALLS, take(side, CALLS), IN_FLIGHT))));
  }
  const loadAfter = loadavg();

  const p50 = (side: Measured) => median(side.seq.map((r) => r.p50));
  const p99 = (side: Measured) => median(side.seq.map((r) => r.p99));
  const conc = (side: Measured) => median(side.conc);
  /** Median CPU µs per call of one process group over the rounds (undefined where /proc cannot be read). */
  const cpuPerCall = (spent: CpuSpent[], name: string): number | undefined => {
    const values = spent.map((s) => s[name]);
    return values.some((v) => v === undefined) ? undefined : (median(values as number[]) * 1000) / CALLS;
  };
  const cpuCells = (spent: CpuSpent[]): string[] => {
    const parts = ['self', 'app', 'server'].map((name) => cpuPerCall(spent, name));
    const total = parts.every((v) => v === undefined) ? undefined : parts.reduce((sum: number, v) => sum + (v ?? 0), 0);
    return [...parts, total].map((v) => (v === undefined ? '–' : fmt(v, 0)));
  };

  printTable([
    ['scenario', 'p50 ms', 'p99 ms', 'calls/s', 'CPU µs/call: agent', 'middle', 'server', 'total'],
    ...sides.map((side) => [`${side.label}, ${CALLS} sequential`, fmt(p50(side)), fmt(p99(side)), fmt(median(side.seq.map((r) => r.throughput)), 0), ...cpuCells(side.seqCpu)]),
    ...sides.map((side) => [`${side.label}, ${IN_FLIGHT} in flight`, '', '', fmt(conc(side), 0), ...cpuCells(side.concCpu)]),
  ]);
  const added = p50(gw) - p50(direct);
  const ratio = conc(gw) / conc(direct);
  console.log('');
  console.log(`gateway vs direct: p50 +${fmt(added)} ms (×${fmt(p50(gw) / p50(direct), 2)}), p99 ×${fmt(p99(gw) / p99(direct), 2)}, concurrent ×${fmt(ratio, 2)}  (goals: p50 added ≤ 0.5 ms, concurrent ≥ ×0.7)`);
  console.log(
    `of the added p50: the HTTP hop (floor − direct) +${fmt(p50(floor) - p50(direct))} ms, MiniHarness's own work (gateway − floor) +${fmt(p50(gw) - p50(floor))} ms; ` +
      `concurrent: floor ×${fmt(conc(floor) / conc(direct), 2)} of direct, gateway ×${fmt(conc(gw) / conc(floor), 2)} of the floor` +
      (floorJson ? `; JSON instead of SSE on the floor: p50 ${fmt(p50(floorJson) - p50(floor))} ms, concurrent ×${fmt(conc(floorJson) / conc(floor), 2)}` : ''),
  );
  console.log(
    `modern era: gateway-modern vs direct p50 +${fmt(p50(gwModern) - p50(direct))} ms; the HTTP hop (floor-modern − direct) +${fmt(p50(floorModern) - p50(direct))} ms, ` +
      `MiniHarness's own work (gateway-modern − floor-modern) +${fmt(p50(gwModern) - p50(floorModern))} ms; concurrent: floor-modern ×${fmt(conc(floorModern) / conc(direct), 2)} of direct, gateway-modern ×${fmt(conc(gwModern) / conc(floorModern), 2)} of its floor`,
  );
  const spread = (values: number[], digits: number) => `${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}`;
  console.log(`per-round spread: ${sides.map((side) => `${side.label.split(':')[0]} p50 ${spread(side.seq.map((r) => r.p50), 3)} ms, ${spread(side.conc, 0)} calls/s`).join('; ')}`);
  console.log(
    `(${ROUNDS} rounds, the order of the sides turning each round, medians over rounds; warm-up ${WARMUP} sequential + ${WARMUP} concurrent per side; ` +
      `CPU from /proc: agent = this process, middle = the app or the floor proxy, server = server-everything; ` +
      `gateway calls: ALLOW rule, one durable checkpoint (SQLite WAL, synchronous=NORMAL) and one trace each; ${PROFILE ? 'host under --inspect=0; ' : ''}` +
      `${process.platform}, ${cpus().length} cores, node ${process.versions.node}; load average ${loadBefore.map((l) => fmt(l, 1)).join(' ')} before, ${loadAfter.map((l) => fmt(l, 1)).join(' ')} after; ` +
      `total ${fmt((performance.now() - started) / 1000, 1)} s)`,
  );
  if (PROFILE) await profileHost(gateway, take(gw, 2 * PROFILE_CALLS));
  console.log(
    JSON.stringify({
      bench: 'gateway',
      p50_added_ms: Number(added.toFixed(3)),
      concurrent_ratio: Number(ratio.toFixed(3)),
      modern_p50_added_ms: Number((p50(gwModern) - p50(direct)).toFixed(3)),
      modern_concurrent_ratio: Number((conc(gwModern) / conc(direct)).toFixed(3)),
    }),
  );
}

runBench(main, closers, work);
