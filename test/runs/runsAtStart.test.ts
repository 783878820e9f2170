/**
 * Agent runs started right after the app starts, while its servers still connect (issue 28.3),
 * through the whole app core (`buildCore`), a real stdio fixture server and the loopback model
 * provider over HTTP. The app starts cold (no schema cache): the fixture answers `initialize`
 * only once a gate file exists, so the server is still connecting when the run starts.
 *
 * - The run waits, visibly (`run.event` `servers` waiting → settled), until its server is ready:
 *   the model's first request offers the server's tools, the call runs once, the run completes.
 *   Before: the model was sent `tools: []`, its call failed "There is no tool named …", and the
 *   run still ended "completed" with the step skipped.
 * - A call whose server failed to start halts the run (`failed`, `servers_unavailable`, resumable)
 *   instead of telling the model there is no such tool and ending "completed".
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail, RunView } from '../../shared/contract/runs.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import { LoopbackProvider } from '../doubles/providers/loopbackProvider.js';
import type { GatewayApp } from '../gateway/support.js';
import { addFixtureServer, startGatewayApp } from '../gateway/support.js';

const ALL = { allServers: true, serverIds: [], localTools: false };

describe('agent runs started while the servers are still connecting', () => {
  const scratch = scratchDir('mh-runs-start-');
  const gate = join(scratch.dir, 'init-gate');
  const counter = join(scratch.dir, 'counter.txt');
  const provider = new LoopbackProvider((request) =>
    request.toolResults === 0
      ? {
          kind: 'reply',
          toolCalls: [{ id: `call-${request.body.messages.length}`, name: 'append', args: { line: 'step' } }],
        }
      : { kind: 'reply', text: ['done'] },
  );
  let app: GatewayApp | undefined;

  beforeAll(async () => {
    await provider.start();
    writeFileSync(gate, '');
    const first = await startGatewayApp(scratch.dir);
    await addFixtureServer(
      first,
      'fx',
      { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append', FIXTURE_INIT_GATE: gate },
      ['append'],
    );
    await first.call('models.save', {
      id: 'loop',
      name: 'Loopback',
      kind: 'anthropic',
      baseUrl: provider.anthropicBaseUrl,
      model: 'loopback-model',
      apiKey: 'sk-runs-at-start-1234',
    });
    await first.close();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await provider.close();
    scratch.cleanup();
  });

  async function settled(a: GatewayApp, id: string): Promise<RunView> {
    await waitFor(async () => (await a.call<RunDetail>('runs.get', { id })).run.status !== 'running', 30_000);
    return (await a.call<RunDetail>('runs.get', { id })).run;
  }

  it('waits, visibly, for its servers; the model is offered their tools and the step runs', async () => {
    // A cold start: no cached tool lists, and the server answers initialize only once the gate opens.
    rmSync(gate);
    rmSync(join(scratch.dir, 'data', 'tool-cache'), { recursive: true, force: true });
    app = await startGatewayApp(scratch.dir);
    const run = await app.call<RunView>('runs.start', { modelId: 'loop', visibility: ALL, prompt: 'append a step' });
    const waiting = await app.nextEvent<{ runId: string; type: string; state?: string; serverIds?: string[] }>(
      'run.event',
      (e) => e.runId === run.id && e.type === 'servers',
    );
    expect(waiting).toMatchObject({ state: 'waiting', serverIds: ['fx'] });
    expect(provider.requests).toHaveLength(0); // the model is not asked while the server connects
    writeFileSync(gate, '');
    const end = await settled(app, run.id);
    expect(
      app.events.some(
        (e) =>
          e.event === 'run.event' &&
          (e.payload as { runId: string; type: string; state?: string }).runId === run.id &&
          (e.payload as { state?: string }).state === 'settled',
      ),
    ).toBe(true);
    const firstRequest = provider.requests[0]!;
    expect((firstRequest.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain('append');
    expect(end.status).toBe('completed');
    expect(provider.requests[1]?.resultTexts.join('\n')).not.toMatch(/There is no tool named/);
    expect(existsSync(counter) ? readFileSync(counter, 'utf8').split('\n').filter(Boolean) : []).toHaveLength(1);
  }, 60_000);

  it('a call whose server failed to start halts the run (resumable), not "completed" with the step skipped', async () => {
    // The server exits during initialize at the next start: it fails, its tools are never listed.
    const fx = (await app!.call<Array<{ config: Record<string, unknown> & { id: string } }>>('servers.list')).find(
      (s) => s.config.id === 'fx',
    )!.config;
    await app!.call('servers.save', {
      mode: 'update',
      config: { ...fx, env: { ...(fx.env as Record<string, string>), FIXTURE_MODE: 'exit-during-init' } },
    });
    await app!.close();
    rmSync(join(scratch.dir, 'data', 'tool-cache'), { recursive: true, force: true });
    const before = provider.requests.length;
    app = await startGatewayApp(scratch.dir);
    const run = await app.call<RunView>('runs.start', { modelId: 'loop', visibility: ALL, prompt: 'append again' });
    const end = await settled(app, run.id);
    expect(end.status).toBe('failed');
    expect(end.outcome).toMatchObject({ code: 'servers_unavailable', message: expect.stringMatching(/fx/) });
    // The model was never told "There is no tool named append".
    expect(
      provider.requests.slice(before).every((r) => !r.resultTexts.join('\n').includes('There is no tool named')),
    ).toBe(true);
  }, 60_000);
});
