/**
 * Two whole cores on one PostgreSQL: an agent run started on one is listed and read on the other,
 * whose GUI is told of its progress (`runs.changed`, heard over `mh_runs`); the other cannot delete
 * it while it runs, and nothing of it is in either SQLite file. Real parts: the loopback model
 * server, the stdio fixture server, PostgreSQL.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunDetail, RunView } from '../../shared/contract/runs.js';
import { openAppDatabase } from '../../electron/core/database.js';
import { redactDatabaseUrl } from '../../electron/storage/postgres/url.js';
import { readLines, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { addFixtureServer, startGatewayApp } from '../gateway/support.js';
import { LoopbackProvider, turnsByToolResults } from '../doubles/providers/loopbackProvider.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

describePostgres('agent runs shared between cores on PostgreSQL', () => {
  const scratch = scratchDir('mh-pg-runs-');
  const counter = join(scratch.dir, 'counter.txt');
  let database: TestDatabase;
  let first: GatewayApp;
  let second: GatewayApp;
  let loopback: LoopbackProvider;

  beforeAll(async () => {
    loopback = await new LoopbackProvider(
      turnsByToolResults([
        {
          kind: 'reply',
          text: ['Writing.'],
          toolCalls: [{ id: 'toolu_p1', name: 'append', args: { line: 'shared' } }],
        },
        { kind: 'reply', text: ['Written.'] },
      ]),
    ).start();
    database = await createTestDatabase('runs_core');
    const selection = { kind: 'postgres' as const, url: database.url, where: redactDatabaseUrl(database.url) };
    first = await startGatewayApp(join(scratch.dir, 'one'), { database: selection });
    second = await startGatewayApp(join(scratch.dir, 'two'), { database: selection });
    await addFixtureServer(first, 'fx', { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append' }, ['append']);
  }, 90_000);

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await loopback?.close();
    await database?.drop();
    scratch.cleanup();
  });

  it('a run started on one core is listed and read on the other, which is told as it completes', async () => {
    await first.call('models.save', {
      id: 'loop',
      name: 'Loopback',
      kind: 'anthropic',
      baseUrl: loopback.anthropicBaseUrl,
      model: 'loopback-model',
      apiKey: 'sk-shared-run-key',
    });
    const started = await first.call<RunView>('runs.start', {
      modelId: 'loop',
      visibility: { allServers: false, serverIds: ['fx'], localTools: false },
      prompt: 'write shared',
    });
    const told = await second.nextEvent<{ id: string; run?: RunView }>(
      'runs.changed',
      (p) => p.id === started.id && p.run?.status === 'completed',
    );
    expect(told.run).toMatchObject({ toolCalls: 1, title: 'write shared', modelName: 'Loopback' });
    expect(readLines(counter)).toEqual(['shared']);
    expect((await second.call<RunView[]>('runs.list')).map((r) => r.id)).toContain(started.id);
    const detail = await second.call<RunDetail>('runs.get', { id: started.id });
    expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool_results', 'assistant']);
    expect(detail.toolCalls).toEqual([
      expect.objectContaining({ callId: 'toolu_p1', toolName: 'append', status: 'done' }),
    ]);
    // The model configuration is shared too (its key stays in the first core's secret store).
    expect(await second.call('models.list')).toEqual([expect.objectContaining({ id: 'loop', key: 'not_set' })]);
    // Neither SQLite file holds the run.
    for (const dir of ['one', 'two']) {
      const local = openAppDatabase(join(scratch.dir, dir, 'data', 'miniharness.db'));
      try {
        expect(local.prepare('SELECT COUNT(*) AS n FROM runs').get()).toEqual({ n: 0 });
      } finally {
        local.close();
      }
    }
    // Removed on the second core: the first's list no longer has it.
    expect(await second.call('runs.delete', { id: started.id })).toEqual({ removed: true });
    expect((await first.call<RunView[]>('runs.list')).map((r) => r.id)).not.toContain(started.id);
  }, 60_000);
});
