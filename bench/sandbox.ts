/**
 * Benchmark: a stdio server sandboxed (sandbox-runtime, issue 29) against the same server
 * unsandboxed, in one run, alternating: server start (spawn to initialize answered) and tool call
 * round trip (the fixture's `echo`, through the real MCPClient). Goals: call p50 ≤ ×1.2 of the
 * unsandboxed p50, start ≤ +150 ms.
 *
 * The library's session (its proxies, the dependency check and a probe) starts once per process;
 * it is started before the first timed start and reported apart (`session_ms`).
 *
 * Prints a table, then one JSON line. Run: npm run bench:sandbox
 * Knobs (env): BENCH_STARTS (8), BENCH_CALLS (300).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MCPClient } from '../electron/mcp/client.js';
import { EgressAsks } from '../electron/sandbox/egressAsk.js';
import { endSandboxSession, sandboxSession, ServerSandboxes } from '../electron/sandbox/serverSandbox.js';
import { DefaultSecretResolver } from '../electron/secrets/resolver.js';
import type { StdioServerConfig } from '../shared/serverConfig.js';
import { buildFixtureServers } from '../test/helpers/buildFixtures.js';
import { stdioFixtureConfig } from '../test/helpers/fixtures.js';

const STARTS = Number(process.env.BENCH_STARTS ?? 8);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);

const work = mkdtempSync(join(tmpdir(), 'mh-bench-sandbox-'));
// As the app runs them: with the egress ask, so a server's HTTP clients go through the egress gate
// (nothing here reaches a host, so nobody is asked).
const egress = new EgressAsks({
  ask: () => Promise.resolve('deny'),
  timeoutMs: () => 1_000,
  callInFlight: () => undefined,
  addToProfile: () => Promise.resolve(),
});
const sandboxes = new ServerSandboxes({ dataDir: join(work, 'data'), home: join(work, 'home'), egress });

function config(sandboxed: boolean): StdioServerConfig {
  return {
    ...stdioFixtureConfig(sandboxed ? 'sandboxed' : 'plain', { FIXTURE_TOOLS: 'echo' }, { timeoutMs: 30_000 }),
    // Sandboxed is the app's default; the baseline is the person's explicit choice to run it unconfined.
    sandbox: { enabled: sandboxed, read: [], denyRead: [], write: [], hosts: [] },
  };
}

function client(sandboxed: boolean): MCPClient {
  return new MCPClient(config(sandboxed), { secrets: new DefaultSecretResolver(), sandboxes });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const round = (n: number): number => Math.round(n * 100) / 100;

async function main(): Promise<void> {
  await buildFixtureServers();
  const sessionStarted = performance.now();
  await sandboxSession();
  const sessionMs = performance.now() - sessionStarted;

  const starts: Record<'plain' | 'sandboxed', number[]> = { plain: [], sandboxed: [] };
  for (let i = 0; i < STARTS; i++) {
    // Alternating, so a machine that gets busier weighs on both sides alike.
    for (const sandboxed of i % 2 ? [true, false] : [false, true]) {
      const c = client(sandboxed);
      const started = performance.now();
      await c.initialize();
      starts[sandboxed ? 'sandboxed' : 'plain'].push(performance.now() - started);
      await c.close();
    }
  }

  const calls: Record<'plain' | 'sandboxed', number[]> = { plain: [], sandboxed: [] };
  const plain = client(false);
  const sandboxed = client(true);
  await Promise.all([plain.initialize(), sandboxed.initialize()]);
  for (let i = 0; i < 20; i++)
    await Promise.all([plain.callTool('echo', { text: 'w' }), sandboxed.callTool('echo', { text: 'w' })]);
  for (let i = 0; i < CALLS; i++) {
    for (const [name, c] of i % 2
      ? ([
          ['sandboxed', sandboxed],
          ['plain', plain],
        ] as const)
      : ([
          ['plain', plain],
          ['sandboxed', sandboxed],
        ] as const)) {
      const started = performance.now();
      await c.callTool('echo', { text: `call ${i}` });
      calls[name].push(performance.now() - started);
    }
  }
  await Promise.all([plain.close(), sandboxed.close()]);

  const row = (what: string, values: number[]): string =>
    `${what.padEnd(22)} p50 ${percentile(values, 50).toFixed(2).padStart(8)} ms   p95 ${percentile(values, 95).toFixed(2).padStart(8)} ms`;
  console.log(`sandbox-runtime session start (once per process): ${sessionMs.toFixed(0)} ms`);
  console.log(row('start, unsandboxed', starts.plain));
  console.log(row('start, sandboxed', starts.sandboxed));
  console.log(row('call, unsandboxed', calls.plain));
  console.log(row('call, sandboxed', calls.sandboxed));
  const startDelta = percentile(starts.sandboxed, 50) - percentile(starts.plain, 50);
  const callRatio = percentile(calls.sandboxed, 50) / percentile(calls.plain, 50);
  console.log(`start +${startDelta.toFixed(0)} ms (goal ≤ +150 ms); call p50 ×${callRatio.toFixed(2)} (goal ≤ ×1.2)`);
  console.log(
    JSON.stringify({
      bench: 'sandbox',
      starts: STARTS,
      calls: CALLS,
      session_ms: round(sessionMs),
      start_p50_plain_ms: round(percentile(starts.plain, 50)),
      start_p50_sandboxed_ms: round(percentile(starts.sandboxed, 50)),
      start_delta_ms: round(startDelta),
      call_p50_plain_ms: round(percentile(calls.plain, 50)),
      call_p50_sandboxed_ms: round(percentile(calls.sandboxed, 50)),
      call_p95_plain_ms: round(percentile(calls.plain, 95)),
      call_p95_sandboxed_ms: round(percentile(calls.sandboxed, 95)),
      call_ratio: round(callRatio),
      cpus: cpus().length,
      loadavg_1m: round(loadavg()[0] ?? 0),
    }),
  );
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    await endSandboxSession();
    rmSync(work, { recursive: true, force: true });
  });
