/**
 * Benchmark: how long each startup fault takes to become its error, process start-up included
 * (test/mcp/faults.test.ts asserts the kind of error, this prints the time). Each fault runs
 * BENCH_RUNS times (5) against the built stdio fixture; the figures are the medians and maxima.
 * The silent server's figure is its deadline (BENCH_SILENT_MS, 1500) plus the cancel path.
 *
 * Run: npm run bench:faults (or npx tsx bench/faults.ts)
 */
import { cpus } from 'node:os';
import type { StdioServerConfig } from '../shared/serverConfig.js';
import { MCPClient } from '../electron/mcp/client.js';
import { DefaultSecretResolver } from '../electron/secrets/resolver.js';
import { buildFixtureServers } from '../test/helpers/buildFixtures.js';
import { stdioFixtureConfig } from '../test/helpers/fixtures.js';
import { testSandboxes } from '../test/helpers/sandboxes.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SILENT_MS = Number(process.env.BENCH_SILENT_MS ?? 1_500);

const faults: [string, StdioServerConfig][] = [
  ['command not found', { ...stdioFixtureConfig('missing'), command: '/nonexistent/bin/mcp-server' }],
  ['exits during initialize', stdioFixtureConfig('exits', { FIXTURE_MODE: 'exit-during-init' })],
  ['garbage on stdout', stdioFixtureConfig('garbage', { FIXTURE_MODE: 'garbage' })],
  ['initialize never answered', stdioFixtureConfig('silent', { FIXTURE_MODE: 'silent' }, { timeoutMs: SILENT_MS })],
  ['healthy (for scale)', stdioFixtureConfig('healthy', { FIXTURE_TOOLS: 'echo' })],
];

async function once(config: StdioServerConfig): Promise<{ ms: number; outcome: string }> {
  const client = new MCPClient(config, { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes() });
  const started = performance.now();
  const outcome = await client.initialize().then(
    () => 'ready',
    (e: unknown) => (e as { code?: string }).code ?? String(e),
  );
  const ms = performance.now() - started;
  await client.close();
  return { ms, outcome };
}

async function main(): Promise<void> {
  await buildFixtureServers();
  await once(faults[4]![1]); // warm the OS file cache once
  console.log(
    `startup faults → error, ${RUNS} runs each; ${process.platform}, ${cpus().length} cores, node ${process.versions.node}`,
  );
  console.log('fault                          outcome            median ms   max ms');
  const figures: Record<string, { outcome: string; medianMs: number; maxMs: number }> = {};
  for (const [name, config] of faults) {
    const samples: number[] = [];
    let outcome = '';
    for (let i = 0; i < RUNS; i++) {
      const r = await once(config);
      samples.push(r.ms);
      outcome = r.outcome;
    }
    samples.sort((a, b) => a - b);
    const medianMs = samples[Math.floor(samples.length / 2)] ?? NaN;
    const maxMs = samples.at(-1) ?? NaN;
    figures[name] = { outcome, medianMs: Math.round(medianMs), maxMs: Math.round(maxMs) };
    console.log(
      `${name.padEnd(30)} ${outcome.padEnd(18)} ${medianMs.toFixed(0).padStart(9)} ${maxMs.toFixed(0).padStart(8)}`,
    );
  }
  console.log(JSON.stringify({ bench: 'faults', runs: RUNS, figures }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
