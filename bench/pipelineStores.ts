/**
 * The whole pipeline on each checkpoint store, in one run (part of `npm run bench:storage`): what
 * `HarnessApplication.executeTool` adds to a tool call when its calls are recorded in SQLite (a
 * WAL file, group commit: the desktop default) and in PostgreSQL (the pool of 10, as a core
 * started with `--database` uses it), beside the raw SDK client calling the same stdio echo
 * server (the test fixture). Traces stay in SQLite on both sides, as in the core.
 *
 * Per round, each side: PIPE_CALLS sequential calls (p50 per call) and as many concurrent
 * calls (PIPE_CONCURRENCY in flight, calls per second); sides take turns going first; figures are
 * medians over rounds. `p50 added` is a side's p50 minus the raw client's; `concurrent ratio` its
 * concurrent throughput over the raw client's (1 would mean the pipeline costs nothing at load).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { openPostgresCheckpoints } from '../electron/checkpoints/postgresStore.js';
import type { CheckpointStores } from '../electron/checkpoints/types.js';
import { openAppDatabase } from '../electron/core/database.js';
import { createPipeline } from '../electron/harness/createPipeline.js';
import { DefaultSecretResolver } from '../electron/secrets/resolver.js';
import { buildFixtureServers } from '../test/helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, stdioFixtureConfig } from '../test/helpers/fixtures.js';
import { testSandboxes } from '../test/helpers/sandboxes.js';
import type { Caller } from './pipelineHelpers.js';
import { InMemoryRuleStore, median, runConcurrent, runSequential } from './pipelineHelpers.js';

const CALLS = Number(process.env.PIPE_CALLS ?? 500);
const ROUNDS = Number(process.env.PIPE_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.PIPE_CONCURRENCY ?? 100);
const SERVER_ID = 'fx';

export interface PipelineSide {
  side: string;
  p50Ms: number;
  p50AddedMs: number;
  concurrentPerS: number;
  concurrentRatio: number;
}

function expectEcho(content: unknown, text: string): void {
  const first = Array.isArray(content) ? (content[0] as { text?: unknown } | undefined) : undefined;
  if (first?.text !== text) throw new Error(`bench: unexpected echo ${JSON.stringify(content)}`);
}

async function rawCaller(closers: Array<() => Promise<void> | void>): Promise<Caller> {
  // As bench/pipeline.ts's raw side: the same client settings, the fixture's start line drained.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BUILT_STDIO_FIXTURE],
    cwd: PROJECT_ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client(
    { name: 'bench-raw', version: '0.0.0' },
    { capabilities: {}, versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(transport);
  closers.push(() => client.close());
  return async (i) => {
    const text = `raw ${i}`;
    expectEcho((await client.callTool({ name: 'echo', arguments: { text } })).content, text);
  };
}

/** The pipeline over a SQLite file in `dir`, its calls recorded in `stores` (default: that file). */
async function pipelineCaller(
  name: string,
  dir: string,
  closers: Array<() => Promise<void> | void>,
  stores?: CheckpointStores,
): Promise<Caller> {
  mkdirSync(join(dir, 'root'), { recursive: true });
  const db = openAppDatabase(join(dir, `${name}.db`));
  const { harness, registry, engine, tracer } = await createPipeline({
    db,
    ...(stores ? { stores } : {}),
    secrets: new DefaultSecretResolver(),
    registry: { sandboxes: testSandboxes() },
    rules: new InMemoryRuleStore(),
    requestApproval: () => Promise.reject(new Error('bench: no approval was expected')),
    localTools: [],
  });
  closers.push(() => {
    tracer.flush();
    db.close();
  });
  closers.push(() => registry.close());
  await engine.addRule({ level: 'ALLOW', match: { serverId: SERVER_ID }, note: 'bench: allow the fixture' });
  registry.addServer(stdioFixtureConfig(SERVER_ID));
  const status = (await registry.discover()).servers[SERVER_ID]?.status;
  if (status?.state !== 'ready') throw new Error(`bench: the fixture did not come up (${JSON.stringify(status)})`);
  return async (i) => {
    const text = `${name} ${i}`;
    const out = await harness.executeTool(
      'echo',
      { text },
      { userId: 'bench', sessionId: `bench-${name}`, callId: `c${i}` },
    );
    if (out.replayed) throw new Error('bench: a new call replayed');
    expectEcho(out.result.content, text);
  };
}

/** Measures the raw client and the pipeline on SQLite, and on PostgreSQL when `postgresUrl` is given. */
export async function measurePipelineStores(
  dir: string,
  postgresUrl: string | undefined,
  closers: Array<() => Promise<void> | void>,
): Promise<{ calls: number; rounds: number; concurrency: number; sides: PipelineSide[] }> {
  await buildFixtureServers();
  const callers: Record<string, Caller> = {
    raw: await rawCaller(closers),
    'pipeline sqlite': await pipelineCaller('sqlite', dir, closers),
  };
  if (postgresUrl) {
    const pg = await openPostgresCheckpoints(postgresUrl);
    closers.push(() => pg.close());
    callers['pipeline postgresql'] = await pipelineCaller('postgres', dir, closers, pg);
  }
  const names = Object.keys(callers);
  const next = new Map(names.map((n) => [n, 0]));
  const take = (name: string, n: number): number => {
    const first = next.get(name) ?? 0;
    next.set(name, first + n);
    return first;
  };
  const p50 = new Map<string, number[]>(names.map((n) => [n, []]));
  const conc = new Map<string, number[]>(names.map((n) => [n, []]));
  for (const name of names) await runSequential(callers[name]!, 100, take(name, 100)); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    for (const name of order) p50.get(name)!.push((await runSequential(callers[name]!, CALLS, take(name, CALLS))).p50);
    for (const name of order)
      conc.get(name)!.push(await runConcurrent(callers[name]!, CALLS, take(name, CALLS), CONCURRENCY));
  }
  const rawP50 = median(p50.get('raw')!);
  const rawConc = median(conc.get('raw')!);
  const sides = names.map((side) => {
    const sideP50 = median(p50.get(side)!);
    const sideConc = median(conc.get(side)!);
    return {
      side,
      p50Ms: Number(sideP50.toFixed(3)),
      p50AddedMs: Number((sideP50 - rawP50).toFixed(3)),
      concurrentPerS: Math.round(sideConc),
      concurrentRatio: Number((sideConc / rawConc).toFixed(3)),
    };
  });
  return { calls: CALLS, rounds: ROUNDS, concurrency: CONCURRENCY, sides };
}
