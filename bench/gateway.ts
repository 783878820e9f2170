/**
 * Benchmark: the agent gateway against the stdio → HTTP proxies people run, in both protocol eras.
 *
 * One server, `@modelcontextprotocol/server-everything` over stdio, and its `echo` tool, called by
 * the official SDK `Client` as the agent, per era — legacy (2025 sessions: a v1 Client, 2025-11-25)
 * and modern (2026-07-28 stateless: a v2 Client, `versionNegotiation: 'auto'`, which must end on
 * 2026-07-28) — through:
 * - direct: the agent spawns the server itself (stdio, no HTTP) — the floor of everything;
 * - floor: the thinnest SDK proxy of that era (bench/httpFloor.ts) — what the HTTP hop costs; for
 *   2025 sessions also the same proxy on the SDK's v2 line (floor-v2), which the gateway is built on;
 * - the peers (bench/peers.ts): `mcp-proxy` (sessions, and its 2026-07-28 leg) and `supergateway
 *   --stateful`; `supergateway` stateless starts a server process per request, so it gets a few
 *   sequential calls only, apart;
 * - the MiniHarness gateway: the browser-mode host (`electron/web/cli.ts`) in its own process,
 *   server-everything configured in it, an ALLOW rule for `echo`, each call's `_meta` callId
 *   checkpointed durably in SQLite (WAL) and traced.
 * A row an era cannot be spoken through is printed "n/a (why)", having been tried. Agent, middle
 * and server are separate processes. Per row: a warm-up, then per round N sequential calls
 * (p50/p99) and N calls with C in flight (calls/s), with the CPU each process spent (/proc). Rounds
 * are interleaved (every row once per round, the order turning), figures are medians over rounds.
 *
 * `--profile` (or BENCH_PROFILE=1) starts the host with `--inspect=0` and, after the rounds,
 * profiles it over windows of sequential and of concurrent calls in each era: where the app's time
 * goes by part (bench/gatewayProfile.ts), and the top self-time entries of MiniHarness's own files.
 * BENCH_PROFILE_DIR writes the profiles and those entries there; BENCH_PROFILE_BASELINE (an earlier
 * run's BENCH_PROFILE_DIR) prints them before → after. BENCH_FLOOR_JSON=1 adds a legacy floor
 * answering with JSON bodies instead of SSE streams.
 *
 * `--ablation` (or BENCH_ABLATION=1) adds three more hosts, each with a part of the record taken away
 * (bench/ablationHost.ts: no traces; checkpoints in memory; both taken away), in the same rounds: what each part
 * costs the p50 and the app's CPU, and each host's p50, throughput and CPU against the best peer. Each ablated
 * host's first call is checked to have left no trace, or no record, as its parts say.
 *
 * Prints a table per era, then one JSON line {"bench":"gateway","eras":{"legacy":{"p50_over_best_peer",
 * "throughput_over_best_peer","rows"},"modern":{…}}}. Run: npm run bench:gateway [-- --profile] [-- --ablation]
 * Knobs (env): BENCH_CALLS (500), BENCH_WARMUP (200), BENCH_ROUNDS (3), BENCH_IN_FLIGHT (16),
 * BENCH_SPOT_CALLS (10), BENCH_PROFILE_CALLS (2000), BENCH_PROFILE_DIR, BENCH_PROFILE_BASELINE, BENCH_FLOOR_JSON=1,
 * BENCH_ONLY (rows to run, e.g. `floor,mcp-proxy`; the gateway always).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
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
import type { PeerSpec } from './peers.js';
import { MCP_PROXY, startPeer, supergateway } from './peers.js';
import type { CpuProfile, ProfileSummary } from './gatewayProfile.js';
import { InspectorClient, summarize } from './gatewayProfile.js';
import type { AblationPart } from './ablationParts.js';
import { ablationHostEntry, builtHostEntry, checkAblation } from './gatewayHost.js';
import type { Caller, SequentialResult } from './pipelineHelpers.js';
import { CpuMeter, descendantPids } from './processCpu.js';
import { fmt, median, printTable, runBench, runConcurrent, runSequential } from './pipelineHelpers.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);
const PROFILE = process.env.BENCH_PROFILE === '1' || process.argv.includes('--profile');
/** A directory of an earlier `--profile` run's summaries (BENCH_PROFILE_DIR of that run): printed beside this run's, before → after. */
const PROFILE_BASELINE = process.env.BENCH_PROFILE_BASELINE;
/** Sequential calls of the supergateway-stateless spot rows. */
const SPOT_CALLS = Number(process.env.BENCH_SPOT_CALLS ?? 10);
/** Only these rows (comma-separated keys: direct, floor, floor-v2, mcp-proxy, supergateway-stateful, supergateway-stateless; the gateway always), for a quick look at one change. */
const ONLY = process.env.BENCH_ONLY?.split(',').map((key) => key.trim());
const PROFILE_CALLS = Number(process.env.BENCH_PROFILE_CALLS ?? 2000);
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
const FLOOR_JSON = process.env.BENCH_FLOOR_JSON === '1';
/** `--ablation`: the gateway also without its traces, without its checkpoints, and without both (bench/ablationHost.ts). */
const ABLATION = process.env.BENCH_ABLATION === '1' || process.argv.includes('--ablation');
const ABLATIONS: Array<{ key: string; parts: AblationPart[]; label: string }> = [
  { key: 'gateway-no-traces', parts: ['traces'], label: 'ablation: the gateway without traces' },
  { key: 'gateway-no-checkpoints', parts: ['checkpoints'], label: 'ablation: the gateway, checkpoints in memory' },
  {
    key: 'gateway-no-record',
    parts: ['traces', 'checkpoints'],
    label: 'ablation: the gateway without the record (both)',
  },
];

const SERVER_ID = 'everything';
const TOOL = `${SERVER_ID}__echo`;

// The SDK's HTTP client gives every fetch one shared AbortSignal, and undici lets go of its
// listener on it only when the request is garbage-collected: thousands of calls in a row trip
// Node's leak warning in this process (the agent's side). Said once here, not thousands of times.
process.removeAllListeners('warning');
let listenerWarningSeen = false;
process.on('warning', (warning) => {
  if (warning.name === 'MaxListenersExceededWarning') {
    if (!listenerWarningSeen)
      console.error(
        '(the agent’s SDK HTTP client piles up abort listeners between collections: Node’s MaxListenersExceededWarning, not shown again)',
      );
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
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version: string;
    bin: Record<string, string>;
  };
  const bin = Object.values(pkg.bin)[0];
  if (!bin) throw new Error('server-everything declares no bin');
  return [join(dir, bin), 'stdio'];
}

function checkEcho(result: CallToolResult, message: string): void {
  const first = result.content[0] as { type?: string; text?: string } | undefined;
  if (result.isError || first?.type !== 'text' || first.text !== `Echo: ${message}`)
    throw new Error(`echo answered ${JSON.stringify(result)}`);
}

// ── the two callers ──────────────────────────────────────────────────────────────────────────

interface Side {
  call: Caller;
  /** CPU of the agent (this process, `self`), and of `app` and `server` where they exist. */
  cpu: CpuMeter;
}

async function directCaller(): Promise<Side> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: everythingEntry(),
    cwd: PROJECT_ROOT,
    stderr: 'pipe',
  });
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

/** The modern era's direct floor: a v2 Client negotiating over stdio; server-everything speaks 2025 only, so this is tried and reported n/a. */
async function directModern(): Promise<Side | { na: string }> {
  const transport = new ModernStdio({
    command: process.execPath,
    args: everythingEntry(),
    cwd: PROJECT_ROOT,
    stderr: 'ignore',
  });
  const client = new ModernClient(
    { name: 'bench-direct-modern', version: '0.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(transport);
  closers.push(() => client.close());
  const version = client.getNegotiatedProtocolVersion();
  if (version !== '2026-07-28') {
    await client.close();
    return {
      na: `server-everything speaks 2025 only: the v2 client negotiated ${version} over stdio; the legacy direct row is the floor`,
    };
  }
  const call: Caller = async (i) => {
    const message = `hello #${i}`;
    checkEcho((await client.callTool({ name: 'echo', arguments: { message } })) as CallToolResult, message);
  };
  return { call, cpu: new CpuMeter({ server: transport.pid ? [transport.pid] : [] }) };
}

/** An agent of `era` over Streamable HTTP: a v1 Client (the 2025 handshake) or a v2 Client negotiating (it must end modern). */
async function httpAgent(
  era: Era,
  url: URL,
  name: string,
  token?: string,
): Promise<{
  callTool(params: {
    name: string;
    arguments: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }): Promise<CallToolResult>;
  close(): Promise<void>;
}> {
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  if (era === 'legacy') {
    const client = new Client({ name, version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, requestInit ? { requestInit } : {}));
    return {
      callTool: async (params) => (await client.callTool(params)) as CallToolResult,
      close: () => client.close(),
    };
  }
  const client = new ModernClient({ name, version: '0.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new ModernHttp(url, requestInit ? { requestInit } : {}));
  if (client.getNegotiatedProtocolVersion() !== '2026-07-28')
    throw new Error(`${name}: the v2 client ended on ${client.getNegotiatedProtocolVersion()}, not 2026-07-28`);
  return { callTool: async (params) => (await client.callTool(params)) as CallToolResult, close: () => client.close() };
}

/** The floor proxy of `era` (bench/httpFloor.ts) as its own process, and the agent of that era over HTTP to it. */
async function floorCaller(
  json: boolean,
  era: Era = 'legacy',
  sdkLine: 'v1' | 'v2' = era === 'legacy' ? 'v1' : 'v2',
): Promise<Side> {
  const floorEra = era === 'legacy' && sdkLine === 'v2' ? 'legacy-v2' : era;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(PROJECT_ROOT, 'bench', 'httpFloor.ts'),
      '--era',
      floorEra,
      ...(json ? ['--json'] : []),
      '--',
      process.execPath,
      ...everythingEntry(),
    ],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
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
  return { call, cpu: new CpuMeter({ app: [child.pid!], server: descendantPids(child.pid!) }) };
}

interface GatewaySide extends Side {
  host: HostProcess;
  /** The same app, called by an agent of the modern era. */
  modern: Side;
}

/**
 * The app as its own process; set up over the bridge as the GUI would, which then disconnects. `ablate`: parts of
 * the record taken away (bench/ablationHost.ts) — a host of its own, its own data folder.
 */
async function gatewayCaller(ablate: AblationPart[] = []): Promise<GatewaySide> {
  const token = randomBytes(24).toString('base64url');
  const folder = ablate.length === 0 ? work : join(work, `ablate-${ablate.join('-')}`);
  // Run as the host as built is (under tsx and the inspector for a profile), so the difference is the parts only.
  const ablation = ablate.length === 0 ? undefined : await ablationHostEntry(PROFILE);
  const host = await HostProcess.start(
    join(folder, 'data'),
    token,
    ['--gateway-port', '0', '--workspace', join(folder, 'workspace')],
    [...(ablation?.nodeArgs ?? []), ...(PROFILE ? ['--inspect=0'] : [])],
    ablation
      ? { entry: ablation.entry, env: { MINIHARNESS_BENCH_ABLATE: ablate.join(',') } }
      : { entry: await builtHostEntry(PROFILE) },
  );
  closers.push(async () => void (await host.stop('SIGTERM')));
  const bridge = await BridgeClient.connect(host.port, { token });
  try {
    await ok(bridge, 'servers.save', {
      mode: 'create',
      config: {
        id: SERVER_ID,
        name: 'Everything',
        transport: 'stdio',
        command: process.execPath,
        args: everythingEntry(),
        cwd: PROJECT_ROOT,
      },
    });
    await waitFor(
      async () =>
        (await ok<ServerView[]>(bridge, 'servers.list', {})).some(
          (s) => s.config.id === SERVER_ID && s.status.state === 'ready' && s.toolCount > 0,
        ),
      60_000,
      100,
    );
    await ok(bridge, 'permissions.setToolLevel', { serverId: SERVER_ID, toolName: 'echo', level: 'ALLOW' });
    const { token: agentToken } = await ok<{ token: string }>(bridge, 'agents.create', {
      name: 'bench-agent',
      visibility: { allServers: true, serverIds: [], localTools: false },
    });
    const url = new URL((await ok<AgentsView>(bridge, 'agents.list', {})).gateway.url);
    const client = await connectAgent(url, agentToken, 'bench-gateway');
    closers.push(() => client.close());
    if (!(await client.listTools()).tools.some((t) => t.name === TOOL)) throw new Error(`gateway: no ${TOOL} listed`);
    const modernClient = await httpAgent('modern', url, 'bench-gateway-modern', agentToken);
    closers.push(() => modernClient.close());

    const callAs = async (
      agent: { callTool: (typeof modernClient)['callTool'] },
      prefix: string,
      i: number,
    ): Promise<CallToolResult> => {
      const message = `hello #${i}`;
      const result = await agent.callTool({
        name: TOOL,
        arguments: { message },
        _meta: { [META_CALL_ID]: `${prefix}-${i}` },
      });
      checkEcho(result, message);
      if ((result._meta as Record<string, unknown> | undefined)?.[META_REPLAYED] !== false)
        throw new Error('gateway: the call was replayed, not run');
      return result;
    };
    const call = (i: number): Promise<CallToolResult> =>
      callAs({ callTool: async (params) => (await client.callTool(params)) as CallToolResult }, 'bench', i);
    const modernCall: Caller = async (i) => void (await callAs(modernClient, 'bench-modern', i));
    // The first call must be allowed by the rule, claimed, run once and completed (as its trace says, where there is one).
    const first = await call(-1);
    // Below the host: server-everything (started by the app's registry) and its sandbox's processes.
    const cpu = (): CpuMeter => new CpuMeter({ app: [host.pid], server: descendantPids(host.pid) });
    const side = {
      call: async (i: number) => void (await call(i)),
      host,
      cpu: cpu(),
      modern: { call: modernCall, cpu: cpu() },
    };
    const traceId = (first._meta as Record<string, unknown>)[META_TRACE_ID] as string;
    if (ablate.length > 0) {
      await checkAblation(bridge, ablate, traceId);
      return side;
    }
    const detail = await ok<TraceDetail>(bridge, 'traces.get', { traceId });
    const types = detail.events.map((e) => e.type).join(',');
    const decision = detail.events.find((e) => e.type === 'decision')?.data as
      { outcome?: string; kind?: string } | undefined;
    if (
      detail.trace.status !== 'ok' ||
      decision?.outcome !== 'allow' ||
      decision.kind !== 'rule' ||
      types !== 'decision,claim,attempt_started,attempt_finished,completed'
    ) {
      throw new Error(
        `gateway: the call was not allowed by the rule and checkpointed (status ${detail.trace.status}, events ${types})`,
      );
    }
    return side;
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

/** The top self-time entries of MiniHarness's own files, as µs of app CPU per call; beside an earlier run's (before → after) when given. */
function ownRows(
  title: string,
  summary: ProfileSummary,
  appCpuMs: number | undefined,
  calls: number,
  baseline: Array<[string, number]> | undefined,
): string[][] {
  const busy = summary.categories.reduce((sum, [, ms]) => sum + ms, 0) + summary.gcMs;
  const perCall = (ms: number) => (appCpuMs === undefined ? ms / calls : ((ms / busy) * appCpuMs * 1000) / calls);
  const now = summary.own.map(([name, ms]): [string, number] => [name, perCall(ms)]);
  if (!baseline) return [[title, 'µs/call'], ...now.map(([name, us]) => [`  ${name}`, fmt(us, 1)])];
  const names = [...new Set([...baseline.map(([n]) => n), ...now.map(([n]) => n)])];
  const before = new Map(baseline);
  const after = new Map(now);
  return [
    [title, 'before µs/call', 'after µs/call'],
    ...names.map((name) => [
      `  ${name}`,
      before.has(name) ? fmt(before.get(name)!, 1) : '(not in top)',
      after.has(name) ? fmt(after.get(name)!, 1) : '(not in top)',
    ]),
    [
      '  = these entries',
      fmt(
        baseline.reduce((t, [, us]) => t + us, 0),
        1,
      ),
      fmt(
        now.reduce((t, [, us]) => t + us, 0),
        1,
      ),
    ],
  ];
}

async function profileHost(side: GatewaySide | (Side & { host: HostProcess }), era: Era, next: number): Promise<void> {
  const inspector = await InspectorClient.connect(side.host.output());
  try {
    let sequentialProfile: CpuProfile | undefined;
    let concurrentProfile: CpuProfile | undefined;
    const sequentialCpu = await side.cpu.measure(async () => {
      sequentialProfile = await inspector.profile(
        async () => void (await runSequential(side.call, PROFILE_CALLS, next)),
      );
    });
    const concurrentCpu = await side.cpu.measure(async () => {
      concurrentProfile = await inspector.profile(
        async () => void (await runConcurrent(side.call, PROFILE_CALLS, next + PROFILE_CALLS, IN_FLIGHT)),
      );
    });
    const sequential = summarize(sequentialProfile!, 15);
    const concurrent = summarize(concurrentProfile!, 15);
    const ownOf = (summary: ProfileSummary, cpuMs: number | undefined): Array<[string, number]> => {
      const busy = summary.categories.reduce((sum, [, ms]) => sum + ms, 0) + summary.gcMs;
      return summary.own.map(([name, ms]) => [
        name,
        cpuMs === undefined ? (ms * 1000) / PROFILE_CALLS : ((ms / busy) * cpuMs * 1000) / PROFILE_CALLS,
      ]);
    };
    if (PROFILE_DIR) {
      mkdirSync(PROFILE_DIR, { recursive: true });
      // Open in Chrome DevTools (Performance) or speedscope.
      writeFileSync(join(PROFILE_DIR, `gateway-${era}-sequential.cpuprofile`), JSON.stringify(sequentialProfile));
      writeFileSync(join(PROFILE_DIR, `gateway-${era}-concurrent.cpuprofile`), JSON.stringify(concurrentProfile));
      writeFileSync(
        join(PROFILE_DIR, `gateway-${era}-own.json`),
        JSON.stringify({
          sequential: ownOf(sequential, sequentialCpu.app),
          concurrent: ownOf(concurrent, concurrentCpu.app),
        }),
      );
    }
    let baseline: { sequential: Array<[string, number]>; concurrent: Array<[string, number]> } | undefined;
    if (PROFILE_BASELINE) {
      try {
        baseline = JSON.parse(
          readFileSync(join(PROFILE_BASELINE, `gateway-${era}-own.json`), 'utf8'),
        ) as typeof baseline;
      } catch {
        console.log(`(no baseline profile for the ${era} era in ${PROFILE_BASELINE})`);
      }
    }
    console.log('');
    console.log(`PROFILE, ${era} era (the app process, sampled every 100 µs)`);
    printTable([
      ...profileRows(
        `app process, ${PROFILE_CALLS} sequential gateway calls`,
        sequential,
        sequentialCpu.app,
        PROFILE_CALLS,
      ),
      ['', '', ''],
      ...profileRows(
        `app process, ${PROFILE_CALLS} calls, ${IN_FLIGHT} in flight`,
        concurrent,
        concurrentCpu.app,
        PROFILE_CALLS,
      ),
    ]);
    console.log(
      `(sampled: busy ${fmt(sequential.wallMs - sequential.idleMs, 0)} of ${fmt(sequential.wallMs, 0)} ms wall sequential, ${fmt(concurrent.wallMs - concurrent.idleMs, 0)} of ${fmt(concurrent.wallMs, 0)} ms concurrent; ` +
        'a busy machine inflates sampled time while the thread waits for a CPU, so shares are scaled to the CPU time /proc reports)',
    );
    console.log('');
    printTable([
      ['functions with the most self time, sequential (native callees included)', 'share of busy'],
      ...sequential.functions.map(([name, ms]) => [
        `  ${name}`,
        `${fmt((100 * ms) / (sequential.wallMs - sequential.idleMs), 1)}%`,
      ]),
    ]);
    console.log('');
    printTable(
      ownRows(
        `MiniHarness's own files: top self time, ${era}, sequential`,
        sequential,
        sequentialCpu.app,
        PROFILE_CALLS,
        baseline?.sequential,
      ),
    );
    console.log('');
    printTable(
      ownRows(
        `MiniHarness's own files: top self time, ${era}, ${IN_FLIGHT} in flight`,
        concurrent,
        concurrentCpu.app,
        PROFILE_CALLS,
        baseline?.concurrent,
      ),
    );
  } finally {
    inspector.close();
  }
}

// ── the peers (bench/peers.ts) ───────────────────────────────────────────────────────────────

/** A peer proxy in front of server-everything, and an agent of `era` to it; an `n/a` reason when that era cannot be spoken through it. */
async function peerCaller(spec: PeerSpec, era: Era, label: string): Promise<Side | { na: string }> {
  const peer = await startPeer(PROJECT_ROOT, spec, [process.execPath, ...everythingEntry()]);
  closers.push(() => peer.stop());
  let client: Awaited<ReturnType<typeof httpAgent>>;
  try {
    client = await httpAgent(era, peer.url, `bench-${label}-${era}`);
  } catch (error) {
    peer.stop();
    const message = error instanceof Error ? error.message : String(error);
    // A 2026-07-28 leg that asks the stdio server (2025 only) for server/discover: the client falls back to the 2025 handshake.
    const fellBack = /ended on (\S+), not 2026-07-28/.exec(message);
    return {
      na: fellBack
        ? `the v2 client negotiated ${fellBack[1]}: its 2026-07-28 leg needs a 2026-07-28 stdio server`
        : message.slice(0, 160),
    };
  }
  closers.push(() => client.close());
  const call: Caller = async (i) => {
    const message = `hello #${i}`;
    checkEcho(await client.callTool({ name: 'echo', arguments: { message } }), message);
  };
  return { call, cpu: new CpuMeter({ app: [peer.pid], server: descendantPids(peer.pid) }) };
}

/**
 * supergateway without --stateful starts a server process for every request (its legacy and its
 * 2026-07-28 leg alike): hundreds of ms a call. Measured apart, sequentially, a few calls, once
 * (16 such processes at once is not a load to put on a shared 2-core machine).
 */
async function spotSequential(side: Side, calls: number): Promise<SequentialResult> {
  await side.call(-1);
  return runSequential(side.call, calls, 0);
}

// ── main ─────────────────────────────────────────────────────────────────────────────────────

type CpuSpent = Record<string, number | undefined>;

interface Measured extends Side {
  label: string;
  /** Short name in the JSON line. */
  key: string;
  era: Era;
  /** A proxy people run (counts for the best peer). */
  peer: boolean;
  next: number;
  seq: SequentialResult[];
  conc: number[];
  seqCpu: CpuSpent[];
  concCpu: CpuSpent[];
}

/** A row that could not be measured, having been tried: why. */
interface NotApplicable {
  label: string;
  key: string;
  era: Era;
  na: string;
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg();
  const gateway = await gatewayCaller();
  const measured = (key: string, era: Era, label: string, side: Side, peer = false): Measured => ({
    ...side,
    key,
    era,
    peer,
    label,
    next: 0,
    seq: [],
    conc: [],
    seqCpu: [],
    concCpu: [],
  });
  const rows: Array<Measured | NotApplicable> = [];
  const wanted = (key: string) => key === 'gateway' || ONLY === undefined || ONLY.includes(key);
  const add = async (
    key: string,
    era: Era,
    label: string,
    start: () => Promise<Side | { na: string }>,
    peer = false,
  ): Promise<void> => {
    if (!wanted(key)) return;
    const side = await start();
    rows.push('na' in side ? { key, era, label, na: side.na } : measured(key, era, label, side, peer));
  };
  await add('direct', 'legacy', 'direct: v1 Client → server-everything (stdio, no HTTP)', directCaller);
  await add('direct', 'modern', 'direct: v2 Client (auto) → server-everything (stdio, no HTTP)', directModern);
  await add('floor', 'legacy', 'floor: bare v1 proxy (HTTP, session)', () => floorCaller(false, 'legacy'));
  // The gateway serves 2025 sessions on the SDK's v2 line: the same bare proxy on v2 tells its own work from the line's.
  await add('floor-v2', 'legacy', 'floor: bare v2 proxy (HTTP, session; the SDK line the gateway uses)', () =>
    floorCaller(false, 'legacy', 'v2'),
  );
  await add('floor', 'modern', 'floor: bare v2 handler (HTTP, stateless)', () => floorCaller(false, 'modern'));
  if (FLOOR_JSON)
    await add('floor-json', 'legacy', 'floor, JSON responses (enableJsonResponse)', () => floorCaller(true));
  for (const era of ['legacy', 'modern'] as const) {
    await add(
      'mcp-proxy',
      era,
      `mcp-proxy 6.7 (HTTP, ${era === 'legacy' ? 'session' : 'stateless leg'})`,
      () => peerCaller(MCP_PROXY, era, 'mcp-proxy'),
      true,
    );
    await add(
      'supergateway-stateful',
      era,
      'supergateway 4 --stateful (HTTP)',
      () => peerCaller(supergateway(true), era, 'supergateway-stateful'),
      true,
    );
  }
  await add('gateway', 'legacy', 'MiniHarness gateway (HTTP, session; rule, checkpoint, trace)', () =>
    Promise.resolve(gateway),
  );
  await add('gateway', 'modern', 'MiniHarness gateway (HTTP, stateless; rule, checkpoint, trace)', () =>
    Promise.resolve(gateway.modern),
  );
  for (const ablation of ABLATION ? ABLATIONS : []) {
    const ablated = await gatewayCaller(ablation.parts);
    rows.push(measured(ablation.key, 'legacy', `${ablation.label} (session)`, ablated));
    rows.push(measured(ablation.key, 'modern', `${ablation.label} (stateless)`, ablated.modern));
  }
  // supergateway stateless: a server process per request; sequential spot figures only.
  const spots: Array<{ era: Era; result: SequentialResult | { na: string } }> = [];
  for (const era of ['legacy', 'modern'] as const) {
    if (!wanted('supergateway-stateless')) {
      spots.push({ era, result: { na: 'left out (BENCH_ONLY)' } });
      continue;
    }
    const side = await peerCaller(supergateway(false), era, 'supergateway-stateless');
    spots.push({ era, result: 'na' in side ? side : await spotSequential(side, SPOT_CALLS) });
  }

  const sides = rows.filter((r): r is Measured => !('na' in r));
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
    // Interleaved: the order turns each round, so drift (heat, WAL growth, the machine's load) hits every side alike.
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    for (const side of order)
      side.seqCpu.push(
        await side.cpu.measure(
          async () => void side.seq.push(await runSequential(side.call, CALLS, take(side, CALLS))),
        ),
      );
    for (const side of order)
      side.concCpu.push(
        await side.cpu.measure(
          async () => void side.conc.push(await runConcurrent(side.call, CALLS, take(side, CALLS), IN_FLIGHT)),
        ),
      );
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

  const eras: Record<string, unknown> = {};
  for (const era of ['legacy', 'modern'] as const) {
    const ofEra = rows.filter((r) => r.era === era);
    console.log('');
    console.log(
      era === 'legacy'
        ? 'LEGACY era (2025 sessions: v1 Client, 2025-11-25)'
        : 'MODERN era (2026-07-28 stateless: v2 Client, versionNegotiation auto)',
    );
    const spot = spots.find((s) => s.era === era)!.result;
    const na = (label: string, why: string) => [label, 'n/a', 'n/a', 'n/a', '', '', '', '', '', '', '', '', why];
    printTable([
      [
        'row',
        'p50 ms',
        'p99 ms',
        `calls/s @${IN_FLIGHT}`,
        'CPU µs/call seq: agent',
        'middle',
        'server',
        'total',
        `@${IN_FLIGHT}: agent`,
        'middle',
        'server',
        'total',
        'note',
      ],
      ...ofEra.map((r) =>
        'na' in r
          ? na(r.label, r.na)
          : [r.label, fmt(p50(r)), fmt(p99(r)), fmt(conc(r), 0), ...cpuCells(r.seqCpu), ...cpuCells(r.concCpu), ''],
      ),
      'na' in spot
        ? na('supergateway 4, stateless', spot.na)
        : [
            'supergateway 4, stateless',
            fmt(spot.p50),
            fmt(spot.p99),
            'n/a',
            '',
            '',
            '',
            '',
            '',
            '',
            '',
            '',
            `a server process per request: ${SPOT_CALLS} sequential calls, once, no concurrency`,
          ],
    ]);
    const measuredOfEra = ofEra.filter((r): r is Measured => !('na' in r));
    const gw = measuredOfEra.find((r) => r.key === 'gateway')!;
    const peers = measuredOfEra.filter((r) => r.peer);
    const floor = measuredOfEra.find((r) => r.key === 'floor');
    const floorV2 = measuredOfEra.find((r) => r.key === 'floor-v2');
    const direct = measuredOfEra.find((r) => r.key === 'direct') ?? sides.find((r) => r.key === 'direct');
    const bestP50 = peers.length > 0 ? peers.reduce((a, b) => (p50(b) < p50(a) ? b : a)) : undefined;
    const bestConc = peers.length > 0 ? peers.reduce((a, b) => (conc(b) > conc(a) ? b : a)) : undefined;
    // Spot rows count for the best p50 only if better (they never are: a process spawn per call).
    const spotP50 = 'na' in spot ? Infinity : spot.p50;
    const bestPeerP50 = Math.min(bestP50 ? p50(bestP50) : Infinity, spotP50);
    const p50Ratio = Number.isFinite(bestPeerP50) ? p50(gw) / bestPeerP50 : NaN;
    const concRatio = bestConc ? conc(gw) / conc(bestConc) : NaN;
    console.log(
      `gateway vs best peer: p50 ×${fmt(p50Ratio, 2)} (best p50: ${bestP50?.key ?? '–'} ${bestP50 ? fmt(p50(bestP50)) : '–'} ms), ` +
        `calls/s ×${fmt(concRatio, 2)} (best: ${bestConc?.key ?? '–'} ${bestConc ? fmt(conc(bestConc), 0) : '–'}); ` +
        `gateway − floor p50 +${floor ? fmt(p50(gw) - p50(floor)) : '–'} ms (${floorV2 ? "MiniHarness's own work and the v2 line's cost, split below" : "MiniHarness's own work"}), floor − direct +${floor && direct ? fmt(p50(floor) - p50(direct)) : '–'} ms (the HTTP hop)`,
    );
    if (floor && floorV2) {
      console.log(
        `on the SDK's v2 line: gateway − v2 floor p50 +${fmt(p50(gw) - p50(floorV2))} ms (MiniHarness's own work), v2 floor − v1 floor +${fmt(p50(floorV2) - p50(floor))} ms (what the v2 line costs a bare proxy); ` +
          `calls/s: gateway ×${fmt(conc(gw) / conc(floorV2), 2)} of the v2 floor`,
      );
    }
    const ablated = measuredOfEra.filter((r) => ABLATIONS.some((a) => a.key === r.key));
    if (ablated.length > 0) {
      const seqCpu = (side: Measured) => cpuPerCall(side.seqCpu, 'app') ?? NaN;
      const bestCpu = peers.length > 0 ? peers.reduce((a, b) => (seqCpu(b) < seqCpu(a) ? b : a)) : undefined;
      console.log(
        `ablation (what the record costs: the gateway as built minus the gateway without it, the same rounds): best peer's own CPU per sequential call ${bestCpu ? `${bestCpu.key} ${fmt(seqCpu(bestCpu), 0)}` : '–'} µs, the gateway's ${fmt(seqCpu(gw), 0)} µs`,
      );
      for (const side of ablated)
        console.log(
          `  ${side.key}: p50 ${fmt(p50(side))} ms (the part taken away: ${fmt(p50(gw) - p50(side))} ms), ×${fmt(p50(side) / bestPeerP50, 2)} of the best peer; ` +
            `calls/s ×${bestConc ? fmt(conc(side) / conc(bestConc), 2) : '–'}; own CPU per sequential call ${fmt(seqCpu(side), 0)} µs ` +
            `(the part taken away: ${fmt(seqCpu(gw) - seqCpu(side), 0)} µs), ×${bestCpu ? fmt(seqCpu(side) / seqCpu(bestCpu), 2) : '–'} of the best peer's`,
        );
    }
    console.log(
      `per-round spread: ${measuredOfEra
        .map(
          (side) =>
            `${side.key} p50 ${spread(
              side.seq.map((r) => r.p50),
              3,
            )} ms, ${spread(side.conc, 0)} calls/s`,
        )
        .join('; ')}`,
    );
    const rowJson: Record<string, unknown> = {};
    for (const r of ofEra)
      rowJson[r.key] =
        'na' in r
          ? { na: r.na }
          : {
              p50_ms: round3(p50(r)),
              p99_ms: round3(p99(r)),
              calls_per_s: Math.round(conc(r)),
              middle_cpu_us_seq: Math.round(cpuPerCall(r.seqCpu, 'app') ?? NaN),
            };
    rowJson['supergateway-stateless'] =
      'na' in spot
        ? { na: spot.na }
        : {
            p50_ms: round3(spot.p50),
            p99_ms: round3(spot.p99),
            calls_per_s: null,
            note: `${SPOT_CALLS} sequential calls; a server process per request`,
          };
    eras[era] = { p50_over_best_peer: round3(p50Ratio), throughput_over_best_peer: round3(concRatio), rows: rowJson };
  }
  console.log('');
  console.log(
    `(${ROUNDS} rounds of ${CALLS} sequential + ${CALLS} at ${IN_FLIGHT} in flight per row, interleaved, the order turning each round, medians over rounds; warm-up ${WARMUP} + ${WARMUP} per row; ` +
      `CPU from /proc: agent = this process, middle = the app / the floor / the peer, server = server-everything and every process between (a sandbox's, a shell); ` +
      `gateway calls: ALLOW rule, one durable checkpoint (SQLite WAL) and one trace each; ${PROFILE ? 'host under --inspect=0; ' : ''}` +
      `${process.platform}, ${cpus().length} cores, node ${process.versions.node}; load average ${loadBefore.map((l) => fmt(l, 1)).join(' ')} before, ${loadAfter.map((l) => fmt(l, 1)).join(' ')} after; ` +
      `total ${fmt((performance.now() - started) / 1000, 1)} s)`,
  );
  if (PROFILE) {
    const gw = sides.find((s) => s.key === 'gateway' && s.era === 'legacy')!;
    const gwModern = sides.find((s) => s.key === 'gateway' && s.era === 'modern')!;
    await profileHost(gateway, 'legacy', take(gw, 2 * PROFILE_CALLS));
    await profileHost({ ...gateway, ...gateway.modern }, 'modern', take(gwModern, 2 * PROFILE_CALLS));
  }
  console.log(JSON.stringify({ bench: 'gateway', eras }));
}

function spread(values: number[], digits: number): string {
  return `${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}`;
}

function round3(value: number): number {
  return Number(value.toFixed(3));
}

runBench(main, closers, work);
