/**
 * Benchmark: how long hostile requests to the agent gateway freeze the app (issue 28.5).
 *
 * The app core as browser mode builds it (test/helpers/scratchCore.ts), in this process, with the
 * stdio fixture server behind its gateway and an ALLOW rule for its `echo`; one agent's token.
 * Every hostile body is built before the clock starts, and sent over loopback HTTP as raw bytes
 * (node:http, no SDK), so what this process does while one is in flight is the app's own work.
 * Each kind is sent BENCH_HOSTILE_ROUNDS times, one at a time, while a probe measures the event
 * loop: `perf_hooks.monitorEventLoopDelay` (its max) and a timer-lag probe (a 5 ms interval, how
 * late it fired). Then all kinds at once, with an honest agent's plain calls among them. The
 * worst stall is what every agent and the GUI waited, at least, for anything at all. Goal: under
 * 50 ms for every kind. Prints a table, then one JSON line.
 *
 * Run with `node --expose-gc` (npm run bench:hostile does) so that a full collection runs before
 * each measured request: the garbage of building the hostile bodies is not counted as their stall.
 * The machine's own load shows too: the first row, an honest plain call, is the floor to compare with;
 * the process's CPU time per request (process.cpuUsage; this process is both sides) is the figure a
 * loaded machine does not inflate.
 *
 * Run: npm run bench:hostile. Env: BENCH_HOSTILE_ROUNDS (3).
 */
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildFixtureServers } from '../test/helpers/buildFixtures.js';
import { addFixtureServer, startGatewayApp } from '../test/gateway/support.js';
import { MAX_JSON_VALUES } from '../shared/jsonBounds.js';
import { fmt, printTable, runBench } from './pipelineHelpers.js';

const ROUNDS = Number(process.env.BENCH_HOSTILE_ROUNDS ?? 3);
const GOAL_MS = 50;
const work = mkdtempSync(join(tmpdir(), 'mh-bench-hostile-'));
const closers: Array<() => Promise<void> | void> = [];

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'hostile', version: '1' },
};
const MODERN = { 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'fx__echo' };
const keys = (n: number): Record<string, number> => {
  const out: Record<string, number> = {};
  for (let i = 0; i < n; i++) out[`k${i}`] = i;
  return out;
};
const call = (params: Record<string, unknown>): Buffer =>
  Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'fx__echo',
        arguments: { text: 'x' },
        ...params,
        _meta: { ...ENVELOPE, ...(params._meta as object) },
      },
    }),
  );

interface Hostile {
  name: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The mix: each shape that cost per key or element, at sizes that stalled the process before the bound. */
function hostileMix(): Hostile[] {
  const deep = 100_000;
  return [
    { name: '_meta of 50,000 keys', headers: MODERN, body: call({ _meta: keys(50_000) }) },
    { name: '_meta of 200,000 keys', headers: MODERN, body: call({ _meta: keys(200_000) }) },
    { name: '_meta of 1,000 keys', headers: MODERN, body: call({ _meta: keys(1_000) }) },
    { name: 'arguments of 50,000 keys', headers: MODERN, body: call({ arguments: keys(50_000) }) },
    {
      name: 'arguments: an array of 1,000,000 numbers',
      headers: MODERN,
      body: call({ arguments: { list: Array.from({ length: 1_000_000 }, (_, i) => i) } }),
    },
    {
      name: 'arguments nested 100,000 deep',
      headers: MODERN,
      body: Buffer.from(
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fx__echo","arguments":{"x":${'['.repeat(deep)}${']'.repeat(deep)}},"_meta":${JSON.stringify(ENVELOPE)}}}`,
      ),
    },
    {
      name: 'a 2025 batch of 10,000 pings',
      headers: {},
      body: Buffer.from(
        JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }))),
      ),
    },
    { name: 'a requestState of 1 MB', headers: MODERN, body: call({ requestState: 'x'.repeat(1_000_000) }) },
    {
      name: '1,500 headers',
      headers: { ...MODERN, ...Object.fromEntries(Array.from({ length: 1_500 }, (_, i) => [`x-h${i}`, 'v'])) },
      body: call({}),
    },
    { name: 'a body over 16 MiB', headers: MODERN, body: call({ arguments: { text: 'x'.repeat(16 * 2 ** 20 + 1) } }) },
    {
      name: `accepted: arguments of ${(MAX_JSON_VALUES - 100).toLocaleString('en-US')} keys`,
      headers: MODERN,
      body: call({ arguments: keys(MAX_JSON_VALUES - 100) }),
    },
    {
      name: 'accepted: a 1 MB string argument',
      headers: MODERN,
      body: call({ arguments: { text: 'y'.repeat(2 ** 20) } }),
    },
  ];
}

/** How late the event loop ran, while `work` runs: monitorEventLoopDelay's max, and a 5 ms timer's worst lateness. */
async function stallDuring<T>(
  work: () => Promise<T>,
): Promise<{ value: T; histogramMs: number; timerLagMs: number; cpuMs: number }> {
  // The garbage of building the bodies (and of the round before) is collected now, not inside the measured window.
  (globalThis as { gc?: () => void }).gc?.();
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  let timerLagMs = 0;
  let expected = performance.now() + 5;
  const timer = setInterval(() => {
    const now = performance.now();
    timerLagMs = Math.max(timerLagMs, now - expected);
    expected = now + 5;
  }, 5);
  const cpu = process.cpuUsage();
  try {
    const value = await work();
    const used = process.cpuUsage(cpu);
    // One more turn of the loop, so a stall at the very end is recorded too.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { value, histogramMs: histogram.max / 1e6, timerLagMs, cpuMs: (used.user + used.system) / 1000 };
  } finally {
    clearInterval(timer);
    histogram.disable();
  }
}

function send(url: URL, token: string, hostile: Hostile): Promise<{ status: number; message: string }> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        // A connection of its own: a kept-alive one the server is closing would read as a reset.
        agent: false,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...hostile.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const message =
            /"message":"([^"]{0,90})/.exec(text)?.[1] ?? (/"isError":true/.test(text) ? 'tool error' : 'ok');
          resolve({ status: res.statusCode ?? 0, message });
        });
        res.on('error', () => resolve({ status: res.statusCode ?? 0, message: 'reset' }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, message: error.code ?? 'error' }));
    req.end(hostile.body);
  });
}

async function main(): Promise<void> {
  await buildFixtureServers();
  const app = await startGatewayApp(work);
  closers.push(() => app.close());
  await addFixtureServer(app, 'fx', { FIXTURE_TOOLS: 'echo' }, ['echo']);
  const { token } = await app.createAgent('Hostile');
  const honest = await app.createAgent('Honest');
  const plain: Hostile = { name: 'a plain call', headers: MODERN, body: call({ arguments: { text: 'hello' } }) };
  // Warm up the paths (JIT, the server's connection) so the first hostile request does not pay for them.
  for (let i = 0; i < 5; i++) await send(app.url, token, plain);

  const mix = hostileMix();
  const rows: string[][] = [
    ['request', 'answer', 'worst stall (histogram) ms', 'worst timer lag ms', 'answered in ms', 'process CPU ms'],
  ];
  const results: Array<{ name: string; status: number; stallMs: number; cpuMs: number }> = [];
  for (const hostile of [plain, ...mix]) {
    let worst = { histogramMs: 0, timerLagMs: 0, ms: 0, cpuMs: 0, status: 0, message: '' };
    for (let round = 0; round < ROUNDS; round++) {
      const began = performance.now();
      const { value, histogramMs, timerLagMs, cpuMs } = await stallDuring(() => send(app.url, token, hostile));
      const ms = performance.now() - began;
      if (Math.max(histogramMs, timerLagMs) >= Math.max(worst.histogramMs, worst.timerLagMs))
        worst = { histogramMs, timerLagMs, ms, cpuMs, ...value };
    }
    rows.push([
      hostile.name,
      `${worst.status} ${worst.message.slice(0, 60)}`,
      fmt(worst.histogramMs, 1),
      fmt(worst.timerLagMs, 1),
      fmt(worst.ms, 0),
      fmt(worst.cpuMs, 0),
    ]);
    results.push({
      name: hostile.name,
      status: worst.status,
      stallMs: Math.max(worst.histogramMs, worst.timerLagMs),
      cpuMs: worst.cpuMs,
    });
  }
  // Everything at once, with an honest agent's plain calls among them: how long did the honest agent wait?
  const honestPlain = { ...plain };
  const together = await stallDuring(async () => {
    const honestTimes: number[] = [];
    const honestCalls = (async () => {
      for (let i = 0; i < 10; i++) {
        const began = performance.now();
        await send(app.url, honest.token, honestPlain);
        honestTimes.push(performance.now() - began);
      }
    })();
    await Promise.all([...mix.map((h) => send(app.url, token, h)), honestCalls]);
    return Math.max(...honestTimes);
  });
  rows.push([
    'all of them at once (+ an honest agent)',
    `honest call worst ${fmt(together.value, 0)} ms`,
    fmt(together.histogramMs, 1),
    fmt(together.timerLagMs, 1),
    '',
    fmt(together.cpuMs, 0),
  ]);
  printTable(rows);
  const worst = Math.max(...results.filter((r) => r.name !== plain.name).map((r) => r.stallMs));
  console.log(
    `\nworst stall of one hostile request: ${fmt(worst, 1)} ms (goal under ${GOAL_MS} ms); all at once: ${fmt(Math.max(together.histogramMs, together.timerLagMs), 1)} ms`,
  );
  console.log(
    JSON.stringify({
      bench: 'hostileRequests',
      rounds: ROUNDS,
      goalMs: GOAL_MS,
      worstStallMs: Number(worst.toFixed(1)),
      allAtOnceStallMs: Number(Math.max(together.histogramMs, together.timerLagMs).toFixed(1)),
      honestWorstMs: Number(together.value.toFixed(0)),
      requests: results.map((r) => ({ ...r, stallMs: Number(r.stallMs.toFixed(1)), cpuMs: Math.round(r.cpuMs) })),
    }),
  );
}

runBench(main, closers, work);
