/**
 * `npm run test:conformance`: every client scenario of the MCP conformance suite
 * (`@modelcontextprotocol/conformance`, pinned 0.1.13: the last that runs on Node 20) against the
 * product's own client (scripts/conformance/client.ts → `MCPClient` and its OAuth session).
 *
 * The client is bundled once with esbuild (23 processes then start in a fraction of the time tsx
 * takes), each scenario runs through the suite's CLI (`conformance client --scenario …`), a few
 * at a time, and one table says how each went. Exit code 1 when a scenario fails that is not
 * listed in expected-failures.json — or when a listed one passes (the list is stale: remove it).
 *
 * Options: `--only <scenario>` (repeatable), `--concurrency <n>` (default: the CPU count, at
 * least 2), `--verbose` (print every scenario's output). `CONFORMANCE_RESULTS=<dir>` keeps the
 * suite's checks.json per scenario. The whole run takes about 60 s of CPU (about 2.5 s per
 * scenario); the suite's per-client limit is raised from 30 s to 60 s so a busy machine does not
 * turn slowness into a failure.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SUITE_CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const BUNDLE = join(ROOT, '.cache', 'conformance', 'client.mjs');
const EXPECTED = join(ROOT, 'scripts', 'conformance', 'expected-failures.json');
/** The suite's limit on one client run, in ms (its default, 30 s, is tight on a loaded 2-core machine). */
const CLIENT_TIMEOUT_MS = 60_000;

interface Outcome {
  scenario: string;
  passed: number;
  total: number;
  failed: number;
  warnings: number;
  exitCode: number;
  seconds: number;
  output: string;
}

function argValues(name: string): string[] {
  const values: string[] = [];
  process.argv.forEach((arg, i) => {
    if (arg === name && process.argv[i + 1]) values.push(process.argv[i + 1] as string);
  });
  return values;
}

function run(args: string[]): Promise<{ exitCode: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SUITE_CLI, ...args], { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ exitCode: code ?? 1, output }));
    child.on('error', (error) => resolve({ exitCode: 1, output: `${output}\n${error.message}` }));
  });
}

async function scenarios(): Promise<string[]> {
  const { output } = await run(['list', '--client']);
  return [...output.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1] as string);
}

async function runScenario(scenario: string, resultsDir: string | undefined): Promise<Outcome> {
  const started = performance.now();
  const args = ['client', '--scenario', scenario, '--timeout', String(CLIENT_TIMEOUT_MS), '--command', `node ${relative(ROOT, BUNDLE)}`];
  if (resultsDir) args.push('--output-dir', resultsDir);
  const { exitCode, output } = await run(args);
  // eslint-disable-next-line no-control-regex -- the suite colours its output whatever NO_COLOR says
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const totals = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(plain);
  return {
    scenario,
    passed: Number(totals?.[1] ?? 0),
    total: Number(totals?.[2] ?? 0),
    failed: Number(totals?.[3] ?? (totals ? 0 : 1)),
    warnings: Number(totals?.[4] ?? 0),
    exitCode,
    seconds: (performance.now() - started) / 1000,
    output: plain,
  };
}

async function pool<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  return results;
}

async function main(): Promise<number> {
  const started = performance.now();
  const verbose = process.argv.includes('--verbose');
  const concurrency = Number(argValues('--concurrency')[0] ?? Math.max(2, availableParallelism()));
  const only = argValues('--only');
  const expected = (JSON.parse(readFileSync(EXPECTED, 'utf8')) as { client: Record<string, string> }).client;
  const resultsDir = process.env.CONFORMANCE_RESULTS;
  if (resultsDir) await mkdir(resultsDir, { recursive: true });

  await build({ entryPoints: [join(ROOT, 'scripts', 'conformance', 'client.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: BUNDLE, logLevel: 'warning' });
  const all = await scenarios();
  const chosen = only.length ? all.filter((s) => only.includes(s)) : all;
  console.log(`MCP conformance 0.1.13: ${chosen.length} client scenarios against MiniHarness's MCPClient (${concurrency} at a time)\n`);

  const outcomes = await pool(chosen, concurrency, async (scenario) => {
    const outcome = await runScenario(scenario, resultsDir);
    const ok = outcome.exitCode === 0 && outcome.failed === 0 && outcome.warnings === 0;
    const mark = ok ? (scenario in expected ? 'STALE' : 'pass') : scenario in expected ? 'expected failure' : 'FAIL';
    const checks = `${outcome.passed}/${outcome.total} checks${outcome.warnings ? `, ${outcome.warnings} warnings` : ''}`;
    console.log(`${mark.padEnd(16)} ${scenario.padEnd(44)} ${checks.padEnd(26)} ${outcome.seconds.toFixed(1)} s`);
    return { ...outcome, ok, mark };
  });

  const unexpected = outcomes.filter((o) => o.mark === 'FAIL' || o.mark === 'STALE');
  for (const o of outcomes) {
    if (verbose || o.mark === 'FAIL') console.log(`\n── ${o.scenario} (exit ${o.exitCode}) ──\n${o.output.trim()}`);
  }
  const checksPassed = outcomes.reduce((n, o) => n + o.passed, 0);
  const checksTotal = outcomes.reduce((n, o) => n + o.total, 0);
  const passed = outcomes.filter((o) => o.ok).length;
  console.log(`\nScenarios: ${passed}/${outcomes.length} passed; checks: ${checksPassed}/${checksTotal}; ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const o of outcomes.filter((x) => x.mark === 'expected failure')) console.log(`Expected failure: ${o.scenario} — ${expected[o.scenario]}`);
  for (const o of outcomes.filter((x) => x.mark === 'STALE')) console.log(`STALE: ${o.scenario} passes now; remove it from scripts/conformance/expected-failures.json`);
  if (unexpected.length) console.log(`\nFAILED: ${unexpected.map((o) => o.scenario).join(', ')}`);
  return unexpected.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
