/**
 * Benchmark: discovery of many stdio servers.
 *
 * Cold: N real stdio servers (the test fixture, each answering initialize after its own delay,
 * spread from 100 ms up to SLOWEST_MS) discovered by one registry, compared with the slowest
 * server discovered alone. Parallel discovery should cost about the slowest server, not the sum.
 * On a small machine twenty Node servers' own start-up is the real floor, so the same run also
 * measures the raw SDK: the same 20 servers spawned, connected (`Client.connect`) and listed
 * (`listTools`) in parallel with the bare SDK `Client` over `StdioClientTransport` — the registry
 * and the floor alternate run by run, and `cold20_over_sdk_floor` is their ratio of medians.
 * Warm: a new registry over the schema cache written by a cold run — time until the tool list is
 * available, and how many `tools/list` reached the servers (counted by the servers themselves).
 *
 * Prints a table, then one JSON line. Run: npm run bench:discovery
 * Knobs (env): BENCH_RUNS (3), BENCH_SLOWEST_MS (1000).
 */
import childProcess from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MCPToolRegistry } from '../electron/mcp/registry.js';
import { ToolSchemaCache } from '../electron/mcp/schemaCache.js';
import { DefaultSecretResolver } from '../electron/secrets/resolver.js';
import type { StdioServerConfig } from '../shared/serverConfig.js';
import { buildFixtureServers } from '../test/helpers/buildFixtures.js';
import { countEvents, stdioFixtureConfig } from '../test/helpers/fixtures.js';
import { testSandboxes } from '../test/helpers/sandboxes.js';

const SLOWEST_MS = Number(process.env.BENCH_SLOWEST_MS ?? 1000);
const FASTEST_MS = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

const work = mkdtempSync(join(tmpdir(), 'mh-bench-discovery-'));

/**
 * Time the event loop spent blocked in spawn(): Node forks and waits for the child to exec, so on
 * a busy machine each spawn holds this process while the new child waits for a core. Counted for
 * both sides (the SDK spawns through cross-spawn, which looks `spawn` up on this module object).
 */
let spawnBlockedMs = 0;
const spawn = childProcess.spawn;
childProcess.spawn = ((...args: Parameters<typeof spawn>) => {
  const started = performance.now();
  try {
    return spawn(...args);
  } finally {
    spawnBlockedMs += performance.now() - started;
  }
}) as typeof spawn;

interface RunCost {
  ms: number;
  /** CPU of this process (registry or bare SDK client side), ms. */
  cpuMs: number;
  spawnMs: number;
}

/** Runs `work` and says what it cost here: wall time, this process's CPU, time blocked in spawn(). */
async function cost(work: () => Promise<void>): Promise<RunCost> {
  const cpu0 = process.cpuUsage();
  const spawn0 = spawnBlockedMs;
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, spawnMs: spawnBlockedMs - spawn0 };
}
const eventsFile = join(work, 'events.jsonl');

function servers(count: number): StdioServerConfig[] {
  return Array.from({ length: count }, (_, i) => {
    // The last server is always the slowest; the others spread below it.
    const delay = count === 1 ? SLOWEST_MS : Math.round(FASTEST_MS + ((SLOWEST_MS - FASTEST_MS) * i) / (count - 1));
    return stdioFixtureConfig(
      `s${i}`,
      {
        FIXTURE_EVENTS: eventsFile,
        FIXTURE_INIT_DELAY_MS: String(delay),
        FIXTURE_PREFIX: `s${i}_`,
        FIXTURE_TOOLS: 'echo,append,slow',
      },
      { timeoutMs: 60_000 }, // a busy 2-core machine must measure slowness, not fail on it
    );
  });
}

async function discoverOnce(
  configs: StdioServerConfig[],
  cache?: ToolSchemaCache,
): Promise<RunCost & { tools: number }> {
  const registry = new MCPToolRegistry({
    secrets: new DefaultSecretResolver(),
    sandboxes: testSandboxes(),
    ...(cache ? { cache } : {}),
  });
  for (const config of configs) registry.addServer(config);
  let result!: Awaited<ReturnType<MCPToolRegistry['discover']>>;
  const spent = await cost(async () => {
    result = await registry.discover();
  });
  const failed = Object.entries(result.servers).filter(([, s]) => s.status.state === 'error');
  if (failed.length) {
    const reasons = failed.map(([id, d]) => `${id}: ${d.status.state === 'error' ? d.status.reason : d.status.state}`);
    throw new Error(`discovery failed:\n${reasons.join('\n')}`);
  }
  await registry.close();
  return { ...spent, tools: result.tools.length };
}

/**
 * The floor: the same servers with the bare SDK — spawn, initialize and list all of them in
 * parallel, as the registry does, with nothing else (no statuses, logs, cache or validation).
 */
async function sdkFloorOnce(configs: StdioServerConfig[]): Promise<RunCost & { tools: number }> {
  let opened: Array<{ client: Client; tools: number }> = [];
  const spent = await cost(async () => {
    opened = await Promise.all(
      configs.map(async (config) => {
        const transport = new StdioClientTransport({
          command: config.command,
          args: config.args,
          env: config.env as Record<string, string>,
          cwd: config.cwd,
          stderr: 'pipe',
        });
        transport.stderr?.on('data', () => undefined); // drained, as the registry does
        // Negotiating as the registry does (`auto`: a server/discover probe, then initialize).
        const client = new Client(
          { name: 'bench-floor', version: '0.0.0' },
          { capabilities: {}, versionNegotiation: { mode: 'auto' } },
        );
        await client.connect(transport, { timeout: 60_000 });
        const { tools } = await client.listTools(undefined, { timeout: 60_000, cacheMode: 'bypass' });
        return { client, tools: tools.length };
      }),
    );
  });
  await Promise.all(opened.map(({ client }) => client.close()));
  return { ...spent, tools: opened.reduce((sum, o) => sum + o.tools, 0) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function measureCold(count: number): Promise<{ ms: number; tools: number }> {
  const samples: number[] = [];
  let tools = 0;
  for (let run = 0; run < RUNS; run++) {
    const r = await discoverOnce(servers(count));
    samples.push(r.ms);
    tools = r.tools;
  }
  return { ms: median(samples), tools };
}

async function main(): Promise<void> {
  await buildFixtureServers();
  await discoverOnce(servers(1)); // warm the OS file cache once

  const slowest = await measureCold(1);
  const cold1 = slowest;
  const cold5 = await measureCold(5);
  // Registry and raw SDK alternate (registry first on even runs), so drift hits both alike.
  const registryRuns: RunCost[] = [];
  const floorRuns: RunCost[] = [];
  let cold20Tools = 0;
  for (let run = 0; run < RUNS * 2; run++) {
    const registryFirst = run % 2 === 0;
    for (const side of registryFirst ? ['registry', 'sdk'] : ['sdk', 'registry']) {
      if (side === 'registry') {
        const r = await discoverOnce(servers(20));
        registryRuns.push(r);
        cold20Tools = r.tools;
      } else {
        const r = await sdkFloorOnce(servers(20));
        if (r.tools !== cold20Tools && cold20Tools !== 0)
          throw new Error(`the raw SDK listed ${r.tools} tools, the registry ${cold20Tools}`);
        floorRuns.push(r);
      }
    }
  }
  const registrySamples = registryRuns.map((r) => r.ms);
  const floorSamples = floorRuns.map((r) => r.ms);
  const cold20 = { ms: median(registrySamples), tools: cold20Tools };
  const floor20 = median(floorSamples);
  // Each registry run against the floor run next to it: steadier than medians when the load drifts.
  const paired = median(registryRuns.map((r, i) => r.ms / (floorRuns[i]?.ms ?? NaN)));
  // For scale: the same 20 servers discovered one after another (measured once).
  let sequential = 0;
  for (const config of servers(20)) sequential += (await discoverOnce([config])).ms;

  // Warm start: a cold run fills the cache folder; then a fresh registry and cache read it.
  const cacheDir = join(work, 'cache');
  const configs = servers(20);
  await discoverOnce(configs, new ToolSchemaCache({ dir: cacheDir }));
  const warmSamples: number[] = [];
  let warmListCalls = 0;
  for (let run = 0; run < RUNS; run++) {
    const before = countEvents(eventsFile, 'tools/list');
    const r = await discoverOnce(configs, new ToolSchemaCache({ dir: cacheDir }));
    warmSamples.push(r.ms);
    warmListCalls += countEvents(eventsFile, 'tools/list') - before;
  }
  const warm = median(warmSamples);

  const rows: Array<[string, string, string, string]> = [
    ['scenario', 'servers', 'median ms', 'vs slowest'],
    ['slowest single server (cold)', '1', cold1.ms.toFixed(0), '1.00'],
    ['cold discovery', '5', cold5.ms.toFixed(0), (cold5.ms / slowest.ms).toFixed(2)],
    ['cold discovery', '20', cold20.ms.toFixed(0), (cold20.ms / slowest.ms).toFixed(2)],
    ['raw SDK floor: connect + list in parallel', '20', floor20.toFixed(0), (floor20 / slowest.ms).toFixed(2)],
    ['one after another (for scale)', '20', sequential.toFixed(0), (sequential / slowest.ms).toFixed(2)],
    ['warm start (schema cache)', '20', warm.toFixed(1), `${warmListCalls} tools/list`],
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  '));
  const spread = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
  console.log(
    `registry cold 20 / raw SDK floor 20: ×${(cold20.ms / floor20).toFixed(3)} (median of run pairs ×${paired.toFixed(3)}; goal ≤ ×1.15); per-run spread registry ${spread(registrySamples)} / floor ${spread(floorSamples)} ms`,
  );
  const perRun = (runs: RunCost[], pick: (r: RunCost) => number) => median(runs.map(pick)).toFixed(0);
  console.log(
    `per run of 20, medians: this process's CPU registry ${perRun(registryRuns, (r) => r.cpuMs)} / floor ${perRun(floorRuns, (r) => r.cpuMs)} ms; ` +
      `event loop blocked in spawn() (fork + exec, serial) registry ${perRun(registryRuns, (r) => r.spawnMs)} / floor ${perRun(floorRuns, (r) => r.spawnMs)} ms`,
  );
  console.log(
    `(${RUNS} runs each, ${RUNS * 2} alternating for registry vs floor at 20; server initialize delays ${FASTEST_MS}–${SLOWEST_MS} ms; ${cold20.tools} tools from 20 servers; ` +
      `${process.platform}, ${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
  );
  console.log(
    JSON.stringify({
      bench: 'discovery',
      cold20_over_slowest: Number((cold20.ms / slowest.ms).toFixed(3)),
      cold20_over_sdk_floor: Number((cold20.ms / floor20).toFixed(3)),
      cold20_over_sdk_floor_paired: Number(paired.toFixed(3)),
      warm_ms: Number(warm.toFixed(2)),
      warm_list_calls: warmListCalls,
    }),
  );
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
