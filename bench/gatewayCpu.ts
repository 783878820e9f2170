/**
 * The gateway's own CPU per call, in both eras, and where it goes by Linux `perf` (issue 33).
 *
 * The host (`electron/web/cli.ts`, its own process) with server-everything, an ALLOW rule for
 * `echo`, each call checkpointed and traced, as in bench/gateway.ts — but no peers: only the
 * host's CPU time per call from /proc, over interleaved rounds of each era (medians). A quick look
 * at one change, and robust where wall-clock is not.
 *
 * `--perf`: also records the host with Linux `perf` (on-CPU samples of every thread, the host
 * started with `--perf-basic-prof` so JavaScript frames have names) over one window per era, and
 * prints the share of each part, every sample charged to its nearest JavaScript frame (native
 * code to the JavaScript that called it, as bench/gatewayProfile.ts does). Unlike V8's sampling
 * profiler over the inspector, perf counts time on a CPU only: a thread waiting for one (this
 * machine is shared) or blocked in a system call is not charged, and stack capture is not
 * inflated by the inspector (the V8 profile showed 150 µs/call building one SDK error that
 * costs no measurable CPU without it). Needs `perf` and perf_event_paranoid ≤ 2. Parts are
 * trustworthy, single function names less so: V8 moves and reuses code, and perf's map of it
 * (`--perf-basic-prof`) names a few samples after a function that lived at that address before.
 *
 * Writes per call: every round also reads the host's write system calls and bytes written
 * (/proc/<pid>/io: sockets, pipes and the SQLite file alike), and `--strace` counts the host's
 * system calls by name over one more round per era (`strace -c -f`: pwrite64 and fcntl are SQLite's).
 * `--wal` records the WAL frames the host writes over one more round per era (strace's copy of each
 * frame's 24-byte header: its page number, and whether it ends a transaction) and names each page's
 * b-tree from the database's `dbstat` table: WAL frames per call by table and index, and the
 * transactions' sizes — what a call's durable record costs in 4 KiB pages.
 *
 * `BENCH_AGAINST=<folder>`: an A/B of this tree against another checkout (a `git worktree` of the
 * commit before, built, its `out/main/benchWebHost.js` bundled by one run of this bench there): both
 * hosts run side by side and take turns round by round (their order swapped every round), and each
 * round's figure is paired with the other host's of the same round — on a shared machine, whose
 * load moves by ±20 % between runs, the ratio of neighbouring rounds is what holds still.
 *
 * Ablations in the same way: `BENCH_AGAINST` naming this very checkout, and this side changed by
 * `BENCH_HOST_NODE_ARGS` (V8 flags for its host), `BENCH_THIS_DIR` (where its data lives: a
 * tmpfs such as /dev/shm takes the file system's part of each SQLite write away) or `BENCH_THIS_ABLATE`
 * (parts of the record its host runs without, bench/ablationHost.ts: `checkpoints`, `traces`,
 * `checkpoints-in-memory-sqlite`). Each round also times the calls: the table gives the paired p50 difference.
 *
 *   npm run bench:gateway-cpu [-- --perf] [-- --strace] [-- --wal]   (BENCH_CALLS per round, default 600; BENCH_ROUNDS, default 4;
 *   BENCH_PERF_DIR keeps the perf.data files; BENCH_AGAINST, BENCH_HOST_NODE_ARGS, BENCH_THIS_DIR, BENCH_THIS_ABLATE)
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AgentsView } from '../shared/agents.js';
import { META_CALL_ID, META_TRACE_ID } from '../shared/agents.js';
import type { ServerView } from '../shared/contract.js';
import { PROJECT_ROOT, waitFor } from '../test/helpers/fixtures.js';
import { HostProcess, ok } from '../test/restart/restartSoak.js';
import { BridgeClient } from '../test/web/host.js';
import { CATEGORIES } from './gatewayProfile.js';
import { fmt, median, printTable, runSequential } from './pipelineHelpers.js';
import { ablationHostEntry, builtHostEntry, checkAblation } from './gatewayHost.js';
import { parseAblation } from './ablationParts.js';
import { processCpuMs, processWrites } from './processCpu.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PERF = process.argv.includes('--perf');
const STRACE = process.argv.includes('--strace');
const WAL = process.argv.includes('--wal');
const work = mkdtempSync(join(tmpdir(), 'mh-bench-gateway-cpu-'));
const PERF_DIR = process.env.BENCH_PERF_DIR ?? work;
const AGAINST = process.env.BENCH_AGAINST;
/** Node options for this tree's host only (an A/B of a V8 flag: `BENCH_HOST_NODE_ARGS=--max-semi-space-size=32`). */
const HOST_NODE_ARGS = (process.env.BENCH_HOST_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** Parts of the record this tree's host runs without (bench/ablationHost.ts), e.g. `checkpoints`: an ablation against `BENCH_AGAINST`. */
const THIS_ABLATE = parseAblation(process.env.BENCH_THIS_ABLATE, 'BENCH_THIS_ABLATE');
type Era = 'legacy' | 'modern';
type Call = (i: number) => Promise<void>;

function everythingEntry(): string[] {
  const dir = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything');
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  return [join(dir, Object.values(pkg.bin)[0]!), 'stdio'];
}

/** The host set up over the bridge as the GUI would (which then disconnects), and one agent per era. */
async function start(
  entry?: string,
  folder = work,
): Promise<{
  host: HostProcess;
  pid: number;
  bundle: string | undefined;
  calls: Record<Era, Call>;
  close(): Promise<void>;
}> {
  const token = randomBytes(24).toString('base64url');
  const dataDir = join(folder, 'data');
  // This tree's host may be the ablation host (bench/ablationHost.ts): parts of the record taken away.
  const ablation = entry === undefined && THIS_ABLATE.length > 0 ? await ablationHostEntry(PERF) : undefined;
  const bundle = entry ?? ablation?.entry ?? (await builtHostEntry(PERF));
  const host = await HostProcess.start(
    dataDir,
    token,
    ['--gateway-port', '0', '--workspace', join(folder, 'ws')],
    [
      ...(PERF ? ['--perf-basic-prof-only-functions'] : []),
      ...(entry === undefined ? [...HOST_NODE_ARGS, ...(ablation?.nodeArgs ?? [])] : []),
    ],
    { entry: bundle, ...(ablation ? { env: { MINIHARNESS_BENCH_ABLATE: THIS_ABLATE.join(',') } } : {}) },
  );
  const bridge = await BridgeClient.connect(host.port, { token });
  const config = { id: 'everything', name: 'Everything', transport: 'stdio', command: process.execPath };
  await ok(bridge, 'servers.save', {
    mode: 'create',
    config: { ...config, args: everythingEntry(), cwd: PROJECT_ROOT },
  });
  const ready = async () =>
    (await ok<ServerView[]>(bridge, 'servers.list', {})).some((s) => s.status.state === 'ready' && s.toolCount > 0);
  await waitFor(ready, 60_000, 100);
  await ok(bridge, 'permissions.setToolLevel', { serverId: 'everything', toolName: 'echo', level: 'ALLOW' });
  const visibility = { allServers: true, serverIds: [], localTools: false };
  const { token: agentToken } = await ok<{ token: string }>(bridge, 'agents.create', { name: 'cpu', visibility });
  const url = new URL((await ok<AgentsView>(bridge, 'agents.list', {})).gateway.url);
  const requestInit = { headers: { Authorization: `Bearer ${agentToken}` } };
  const legacy = new Client({ name: 'bench-cpu', version: '0.0.0' });
  await legacy.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  if (ablation) {
    const params = {
      name: 'everything__echo',
      arguments: { message: 'ablation' },
      _meta: { [META_CALL_ID]: 'ablation' },
    };
    const meta = (await legacy.callTool(params))._meta as Record<string, unknown> | undefined;
    await checkAblation(bridge, THIS_ABLATE, meta?.[META_TRACE_ID] as string);
  }
  bridge.close();
  const modern = new ModernClient({ name: 'bench-cpu', version: '0.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await modern.connect(new ModernHttp(url, { requestInit }));
  const callOf =
    (era: Era, client: { callTool: Client['callTool'] }): Call =>
    async (i) => {
      const message = `hello #${i}`;
      const params = { name: 'everything__echo', arguments: { message }, _meta: { [META_CALL_ID]: `${era}-${i}` } };
      const result = (await client.callTool(params)) as { isError?: boolean; content: Array<{ text?: string }> };
      if (result.isError || result.content[0]?.text !== `Echo: ${message}`) throw new Error(JSON.stringify(result));
    };
  const calls = { legacy: callOf('legacy', legacy), modern: callOf('modern', modern as never) };
  const close = async () => {
    await Promise.all([legacy.close(), modern.close()]);
    await host.stop('SIGTERM');
  };
  return { host, pid: host.pid, bundle, calls, close };
}

let next = 0;
/** Runs `calls` sequential calls; returns their median latency (ms, as the agent sees it). */
async function run(call: Call, calls: number): Promise<number> {
  const { p50 } = await runSequential(call, calls, next);
  next += calls;
  return p50;
}

/**
 * Runs `CALLS` calls while `command` (perf, strace) watches the host, then stops it with SIGINT (it writes its
 * file then). A watcher that ends before it is stopped (a folder it cannot write, no permission) fails the
 * bench, its own words given, instead of leaving it waiting for an exit that already happened.
 */
async function watched(command: string, args: string[], call: Call, settleMs = 0): Promise<void> {
  const watcher = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  watcher.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  let ended = false;
  // Not started at all (not installed: spawn's error, no exit) ends it the same way, with the error's words.
  const exited = new Promise<void>((resolve) => {
    watcher.once('error', (error) => {
      said ||= error.message;
      ended = true;
      resolve();
    });
    watcher.once('exit', () => {
      ended = true;
      resolve();
    });
  });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  if (ended) throw new Error(`${command} ended before the calls: ${said.trim() || 'no message'}`);
  await run(call, CALLS);
  if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
  if (ended) throw new Error(`${command} ended during the calls: ${said.trim() || 'no message'}`);
  watcher.kill('SIGINT');
  await exited;
}

/** Records the host with perf over `calls` calls; returns `perf script` output. */
async function record(pid: number, era: Era, call: Call): Promise<string> {
  mkdirSync(PERF_DIR, { recursive: true });
  const file = join(PERF_DIR, `perf-${era}.data`);
  await watched('perf', ['record', '-F', '1999', '-g', '-p', String(pid), '-o', file], call);
  return execFileSync('perf', ['script', '-i', file, '-F', 'ip,sym'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** Prints the host's system calls per call by name over `CALLS` calls (strace -c -f: all threads). */
async function traceSyscalls(pid: number, era: Era, call: Call): Promise<void> {
  const file = join(work, `strace-${era}.txt`);
  await watched('strace', ['-c', '-f', '-p', String(pid), '-o', file], call);
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 5 && /^\d/.test(cols[3] ?? '') && cols.at(-1) !== 'total')
    .map((cols) => [cols.at(-1)!, Number(cols[3]) / CALLS] as const)
    .sort((a, b) => b[1] - a[1]);
  console.log(`\nsystem calls of the host per call, ${era} (strace -c -f over ${CALLS} calls; strace slows the host)`);
  printTable([['syscall', 'per call'], ...rows.filter(([, n]) => n >= 0.05).map(([name, n]) => [name, fmt(n, 2)])]);
}

/** Prints the WAL frames the host writes per call, by b-tree, over `CALLS` calls (see the file comment). */
async function walFrames(pid: number, era: Era, call: Call): Promise<void> {
  const file = join(work, `wal-${era}.txt`);
  const args = ['-f', '-e', 'trace=pwrite64', '-xx', '-s', '24', '-p', String(pid), '-o', file];
  // The trace writes of the last calls are committed up to LATER_MS later.
  await watched('strace', args, call, 200);
  const db = new BetterSqlite3(join(work, 'data', 'miniharness.db'), { readonly: true });
  const owner = new Map(
    db
      .prepare('SELECT name, pageno FROM dbstat')
      .all()
      .map((row) => [(row as { pageno: number }).pageno, (row as { name: string }).name]),
  );
  db.close();
  const byTree = new Map<string, number>();
  const sizes: number[] = [];
  let frames = 0;
  // A frame header is the only 24-byte write: page number (4 bytes, big-endian), then the database
  // size after the commit (nonzero on a transaction's last frame).
  for (const match of readFileSync(file, 'utf8').matchAll(/"((?:\\x[0-9a-f]{2}){24})", 24, \d+\)/g)) {
    const bytes = Buffer.from(match[1]!.replaceAll('\\x', ''), 'hex');
    const tree = owner.get(bytes.readUInt32BE(0)) ?? '(page freed since)';
    byTree.set(tree, (byTree.get(tree) ?? 0) + 1);
    frames++;
    if (bytes.readUInt32BE(4) !== 0) {
      sizes.push(frames - sizes.reduce((sum, n) => sum + n, 0));
    }
  }
  console.log(
    `\nWAL frames written by the host, ${era}: ${fmt(frames / CALLS, 2)} per call (${fmt((frames * 4120) / CALLS / 1024, 1)} KiB), ` +
      `${fmt(sizes.length / CALLS, 2)} transactions per call, frames per transaction: median ${fmt(median(sizes), 0)}, max ${Math.max(0, ...sizes)}`,
  );
  printTable([
    ['b-tree', 'frames per call'],
    ...[...byTree].sort((a, b) => b[1] - a[1]).map(([tree, n]) => [tree, fmt(n / CALLS, 2)]),
  ]);
}

const GC = /Scavenge|MarkCompact|Heap::|GCTracer|Sweeper|Marking|Evacuat/;

/**
 * The built host is one bundle: a frame in it is named by the source file its line came from (the
 * `// electron/…` region comments esbuild writes), so its parts are those of the sources under tsx.
 */
function bundleSources(bundle: string): (url: string) => string {
  const starts: number[] = [];
  const paths: string[] = [];
  readFileSync(bundle, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const region = /^\/\/ ((?:electron|shared|node_modules)\/\S+)$/.exec(text);
      if (region) {
        starts.push(i + 1);
        paths.push(region[1]!);
      }
    });
  const name = bundle.split('/').at(-1)!;
  return (url) => {
    const at = url.lastIndexOf(`${name}:`);
    if (at < 0) return url;
    const line = Number.parseInt(url.slice(at + name.length + 1), 10);
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= line) low = mid;
      else high = mid - 1;
    }
    return starts[low] !== undefined && starts[low]! <= line ? `${PROJECT_ROOT}/${paths[low]}` : url;
  };
}

/** Share of the samples by part: each sample charged to its nearest JavaScript frame (`JS:` in perf's map). */
function byPart(script: string, source: (url: string) => string = (url) => url): Array<[string, number]> {
  const parts = new Map<string, number>();
  let total = 0;
  for (const sample of script.split('\n\n')) {
    const frames = sample
      .split('\n')
      .filter((line) => /^\s/.test(line))
      .map((line) => line.trim().replace(/^\S+\s+/, ''));
    if (frames.length === 0) continue;
    total++;
    const js = frames.find((frame) => frame.startsWith('JS:'));
    const url = source(js?.replace(/^JS:\S*\s*\S+\s+/, '') ?? '');
    const part = GC.test(frames[0]!)
      ? 'garbage collection'
      : !js
        ? 'native, no JavaScript caller (libuv, kernel, V8)'
        : url.startsWith(':') // code without a script: zod's parsers, compiled with new Function
          ? 'zod (SDK message schemas, contract events)'
          : (CATEGORIES.find(([pattern]) => pattern.test(url))?.[1] ??
            `other: ${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? url.split('/').slice(-2).join('/')}`);
    parts.set(part, (parts.get(part) ?? 0) + 1);
  }
  return [...parts].map(([part, n]): [string, number] => [part, n / total]).sort((a, b) => b[1] - a[1]);
}

type App = Awaited<ReturnType<typeof start>>;

/** Host CPU per call (µs) over one round of `CALLS` calls of `era`, and its writes. */
async function measure(app: App, era: Era): Promise<{ us?: number; p50: number; syscalls?: number; bytes?: number }> {
  const before = processCpuMs(app.pid);
  const wroteBefore = processWrites(app.pid);
  const p50 = await run(app.calls[era], CALLS);
  const after = processCpuMs(app.pid);
  const wroteAfter = processWrites(app.pid);
  return {
    p50,
    ...(before !== undefined && after !== undefined ? { us: ((after - before) * 1000) / CALLS } : {}),
    ...(wroteBefore && wroteAfter
      ? {
          syscalls: (wroteAfter.syscalls - wroteBefore.syscalls) / CALLS,
          bytes: (wroteAfter.bytes - wroteBefore.bytes) / CALLS,
        }
      : {}),
  };
}

/** BENCH_AGAINST: this tree's host and the other checkout's, side by side, paired round by round. */
async function against(folder: string): Promise<void> {
  const entry = join(folder, 'out', 'main', 'benchWebHost.js');
  if (!existsSync(entry))
    throw new Error(`${entry} is missing: build that checkout and run this bench there once (it bundles its host).`);
  const load = loadavg();
  const thisDir = process.env.BENCH_THIS_DIR
    ? mkdtempSync(join(process.env.BENCH_THIS_DIR, 'mh-bench-'))
    : join(work, 'this');
  const sides = { base: await start(entry, join(work, 'base')), this: await start(undefined, thisDir) };
  try {
    for (const app of Object.values(sides))
      for (const era of ['legacy', 'modern'] as const) await run(app.calls[era], 200);
    const cpu: Record<Era, { base: number[]; this: number[]; ratio: number[] }> = {
      legacy: { base: [], this: [], ratio: [] },
      modern: { base: [], this: [], ratio: [] },
    };
    /** Each round's p50 latency (ms), this side minus the base side. */
    const p50Delta: Record<Era, number[]> = { legacy: [], modern: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const era of ['legacy', 'modern'] as const) {
        const order = round % 2 ? (['this', 'base'] as const) : (['base', 'this'] as const);
        const got: Partial<Record<'base' | 'this', Awaited<ReturnType<typeof measure>>>> = {};
        for (const side of order) got[side] = await measure(sides[side], era);
        p50Delta[era].push(got.this!.p50 - got.base!.p50);
        if (got.base?.us === undefined || got.this?.us === undefined) continue;
        cpu[era].base.push(got.base.us);
        cpu[era].this.push(got.this.us);
        cpu[era].ratio.push(got.this.us / got.base.us);
      }
    printTable([
      [
        'era',
        'base µs/call (median)',
        'this tree µs/call (median)',
        'paired ratio (median)',
        'ratios by round',
        'p50 this − base (median, ms)',
      ],
      ...(['legacy', 'modern'] as const).map((era) => [
        era,
        fmt(median(cpu[era].base), 0),
        fmt(median(cpu[era].this), 0),
        `×${fmt(median(cpu[era].ratio), 3)}`,
        cpu[era].ratio.map((r) => fmt(r, 2)).join(' '),
        fmt(median(p50Delta[era]), 3),
      ]),
    ]);
    console.log(
      `(A/B against ${folder}${THIS_ABLATE.length > 0 ? `, this side without: ${THIS_ABLATE.join(', ')}` : ''}: ${ROUNDS} rounds of ${CALLS} sequential calls per era and host, the hosts taking turns; load average ${load.map((l) => l.toFixed(1)).join(' ')} before, ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} after)`,
    );
    console.log(
      JSON.stringify({
        bench: 'gateway-cpu-ab',
        legacy_ratio: median(cpu.legacy.ratio),
        modern_ratio: median(cpu.modern.ratio),
        legacy_p50_delta_ms: median(p50Delta.legacy),
        modern_p50_delta_ms: median(p50Delta.modern),
      }),
    );
  } finally {
    await Promise.all(Object.values(sides).map((app) => app.close()));
  }
}

async function main(): Promise<void> {
  if (AGAINST !== undefined) return against(AGAINST);
  const load = loadavg();
  const app = await start();
  try {
    for (const era of ['legacy', 'modern'] as const) await run(app.calls[era], 200);
    const cpu: Record<Era, number[]> = { legacy: [], modern: [] };
    const writes: Record<Era, Array<{ syscalls: number; bytes: number }>> = { legacy: [], modern: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const era of round % 2 ? (['modern', 'legacy'] as const) : (['legacy', 'modern'] as const)) {
        const { us, syscalls, bytes } = await measure(app, era);
        if (us !== undefined) cpu[era].push(us);
        if (syscalls !== undefined && bytes !== undefined) writes[era].push({ syscalls, bytes });
      }
    const rows = [['era', 'host CPU µs/call (median)', 'rounds', 'write syscalls/call', 'bytes written/call']];
    for (const era of ['legacy', 'modern'] as const)
      rows.push([
        era,
        fmt(median(cpu[era]), 0),
        cpu[era].map((us) => fmt(us, 0)).join(' '),
        fmt(median(writes[era].map((w) => w.syscalls)), 1),
        fmt(median(writes[era].map((w) => w.bytes)), 0),
      ]);
    printTable(rows);
    if (STRACE) for (const era of ['legacy', 'modern'] as const) await traceSyscalls(app.pid, era, app.calls[era]);
    if (WAL) for (const era of ['legacy', 'modern'] as const) await walFrames(app.pid, era, app.calls[era]);
    if (PERF)
      for (const era of ['legacy', 'modern'] as const) {
        console.log(`\nwhere the host's CPU goes, ${era}, ${CALLS} sequential calls (perf, on-CPU samples)`);
        const parts = byPart(
          await record(app.pid, era, app.calls[era]),
          app.bundle === undefined ? undefined : bundleSources(app.bundle),
        );
        printTable([
          ['part', 'share', 'µs/call at the median'],
          ...parts.map(([part, share]) => [part, `${fmt(share * 100, 1)}%`, fmt(share * median(cpu[era]), 0)]),
        ]);
      }
    console.log(
      `(${THIS_ABLATE.length > 0 ? `the host WITHOUT ${THIS_ABLATE.join(', ')} (bench/ablationHost.ts); ` : ''}${ROUNDS} rounds of ${CALLS} sequential calls per era, interleaved, after 200 warm-up calls each; the host's user + system CPU from /proc; load average ${load.map((l) => l.toFixed(1)).join(' ')} before, ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} after)`,
    );
    console.log(
      JSON.stringify({
        bench: 'gateway-cpu',
        legacy_us_per_call: median(cpu.legacy),
        modern_us_per_call: median(cpu.modern),
        legacy_write_bytes_per_call: median(writes.legacy.map((w) => w.bytes)),
        modern_write_bytes_per_call: median(writes.modern.map((w) => w.bytes)),
      }),
    );
  } finally {
    await app.close();
  }
}

await main();
