/**
 * The models and runs channels through the whole app core (as browser mode and Electron build
 * it): a model saved with its key (write-only), the connection test, a run of the loopback model
 * that calls the fixture server's write tool and finishes, streamed as contract events — and the
 * key never in a response, an event, or any file of the data folder but the secret store's.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelView, RunDetail, RunView } from '../../shared/contract/runs.js';
import { readLines, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { addFixtureServer, startGatewayApp } from '../gateway/support.js';
import { LoopbackProvider, turnsByToolResults } from '../doubles/providers/loopbackProvider.js';

const KEY = 'sk-contract-key-9f8e7d6c5b';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('models and runs over the contract', () => {
  const scratch = scratchDir();
  const counter = join(scratch.dir, 'counter.txt');
  let app: GatewayApp;
  let loopback: LoopbackProvider;

  beforeAll(async () => {
    loopback = await new LoopbackProvider(
      turnsByToolResults([
        {
          kind: 'reply',
          text: ['Writing ', 'it.'],
          toolCalls: [{ id: 'toolu_c1', name: 'append', args: { line: 'from-run' } }],
        },
        { kind: 'reply', text: ['Written.'] },
      ]),
    ).start();
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'fx', { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append' }, ['append']);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await loopback.close();
    scratch.cleanup();
  });

  it('saves a model with a write-only key and tests the connection', async () => {
    const saved = await app.call<ModelView>('models.save', {
      id: 'loop',
      name: 'Loopback',
      kind: 'anthropic',
      baseUrl: loopback.anthropicBaseUrl,
      model: 'loopback-model',
      apiKey: KEY,
    });
    expect(saved).toEqual({
      id: 'loop',
      name: 'Loopback',
      kind: 'anthropic',
      baseUrl: loopback.anthropicBaseUrl,
      model: 'loopback-model',
      key: 'set',
    });
    expect(JSON.stringify(await app.call('models.list'))).not.toContain(KEY);
    await expect(app.call('models.test', { id: 'loop' })).resolves.toEqual({ models: ['loopback-model'] });

    await app.call('models.save', {
      id: 'bad',
      name: 'Wrong key',
      kind: 'openai',
      baseUrl: loopback.openaiBaseUrl,
      model: 'm',
      apiKey: 'wrong-key',
    });
    await expect(app.call('models.test', { id: 'bad' })).rejects.toMatchObject({
      shape: { code: 'model_auth_failed' },
    });
    await expect(
      app.call('models.save', { id: 'x', name: 'x', kind: 'openai', baseUrl: 'file:///etc', model: 'm' }),
    ).rejects.toMatchObject({ shape: { code: 'invalid_request' } });
  });

  it('a second model under a taken name is refused at its name unless the person confirmed replacing it (issue 34.1)', async () => {
    const first = { id: 'twice', name: 'Twice', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'one' };
    await app.call('models.save', first);
    const refused = (await app
      .call('models.save', { ...first, baseUrl: 'http://127.0.0.1:10/v1', model: 'two' })
      .catch((e: unknown) => e)) as { shape: { code: string; details?: { fieldErrors?: Record<string, string[]> } } };
    expect(refused.shape.code).toBe('validation');
    expect(refused.shape.details?.fieldErrors?.['name']?.[0]).toMatch(/a model named “Twice” exists already/);
    // Another id, the same name in other letters' case: refused too, replace or not.
    await expect(
      app.call('models.save', { ...first, id: 'twice-2', name: 'TWICE', replace: true }),
    ).rejects.toMatchObject({ shape: { code: 'validation' } });
    const kept = (await app.call<ModelView[]>('models.list')).filter((m) => m.name.toLowerCase() === 'twice');
    expect(kept).toEqual([expect.objectContaining({ id: 'twice', baseUrl: 'http://127.0.0.1:9/v1', model: 'one' })]);
    await app.call('models.save', { ...first, baseUrl: 'http://127.0.0.1:10/v1', model: 'two', replace: true });
    expect((await app.call<ModelView[]>('models.list')).find((m) => m.id === 'twice')).toMatchObject({
      baseUrl: 'http://127.0.0.1:10/v1',
      model: 'two',
    });
  });

  it('a bad base URL is refused with a sentence at its field, never "the contract" (issue 34.2)', async () => {
    const refused = (await app
      .call('models.save', { id: 'oll', name: 'Ollama', kind: 'openai', baseUrl: 'localhost:11434', model: 'm' })
      .catch((e: unknown) => e)) as {
      shape: { code: string; message: string; details?: { fieldErrors?: Record<string, string[]> } };
    };
    expect(refused.shape.code).toBe('invalid_request');
    expect(refused.shape.details?.fieldErrors?.['baseUrl']).toEqual([
      'must start with http:// or https:// — did you mean http://localhost:11434/v1?',
    ]);
    expect(refused.shape.message).not.toMatch(/contract/);
    expect(refused.shape.message).toMatch(/baseUrl: must start with http/);
  });

  it('a run calls the write tool and finishes; its progress streams as events', async () => {
    const started = await app.call<RunView>('runs.start', {
      modelId: 'loop',
      visibility: { allServers: false, serverIds: ['fx'], localTools: false },
      prompt: 'write from-run',
    });
    expect(started).toMatchObject({
      status: 'running',
      modelName: 'Loopback',
      caller: `agent run ${started.id.slice(0, 8)} (Loopback)`,
      title: 'write from-run',
    });
    const done = await app.nextEvent<{ id: string; run?: RunView }>(
      'runs.changed',
      (p) => p.id === started.id && p.run?.status === 'completed',
    );
    expect(done.run).toMatchObject({ toolCalls: 1 });
    expect(readLines(counter)).toEqual(['from-run']);

    const detail = await app.call<RunDetail>('runs.get', { id: started.id });
    expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool_results', 'assistant']);
    expect(detail.toolCalls).toEqual([
      {
        callId: 'toolu_c1',
        name: 'append',
        toolName: 'append',
        serverId: 'fx',
        args: { line: 'from-run' },
        status: 'done',
        result: { text: 'appended from-run', isError: false },
      },
    ]);
    const streamed = app.events
      .filter((e) => e.event === 'run.event' && (e.payload as { runId: string }).runId === started.id)
      .map((e) => e.payload as { type: string; delta?: string });
    expect(
      streamed
        .filter((e) => e.type === 'text')
        .map((e) => e.delta)
        .join(''),
    ).toBe('Writing it.Written.');
    // The run's call is in History under the run's session and caller.
    const history = await app.call<{ records: Array<{ callId: string; userId: string }> }>('history.page', {
      sessionId: started.id,
    });
    expect(history.records).toMatchObject([{ callId: 'toolu_c1', userId: started.caller }]);
    await expect(app.call('runs.resume', { id: started.id })).rejects.toMatchObject({
      shape: { code: 'not_resumable' },
    });
  });

  it('the key reached the provider, and nowhere else: no event, no file of the data folder but the secret store', async () => {
    expect(loopback.requests.some((r) => JSON.stringify(r.headers).includes(KEY))).toBe(true);
    expect(JSON.stringify(app.events)).not.toContain(KEY);
    await app.close();
    const leaks = filesUnder(app.dataDir).filter(
      (file) => !file.endsWith('secrets.json') && readFileSync(file).includes(KEY),
    );
    expect(leaks).toEqual([]);
  });
});
