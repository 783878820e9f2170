/**
 * An agent calling through the gateway right after the app starts, while the server behind is
 * still connecting (issue 28.4), through the whole app core, a real stdio fixture server and the
 * v2 SDK client: a cold start (no cached tool lists) and a server that answers `initialize` only
 * once a gate file exists. The call waits for the server and runs once, and a `tools/list` made
 * meanwhile answers the whole list; before, the call was refused at once as "Unknown tool:
 * fx__append" and the list was empty, although the server came up a moment later.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, connectModernAgent, startGatewayApp } from './support.js';

describe('a gateway call made while the app starts waits for its server', () => {
  const scratch = scratchDir('mh-gw-start-');
  const gate = join(scratch.dir, 'init-gate');
  const counter = join(scratch.dir, 'counter.txt');
  let app: GatewayApp | undefined;
  let token: string;

  beforeAll(async () => {
    writeFileSync(gate, '');
    const first = await startGatewayApp(scratch.dir);
    await addFixtureServer(
      first,
      'fx',
      { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append', FIXTURE_INIT_GATE: gate },
      ['append'],
    );
    token = (await first.createAgent('Early agent')).token;
    await first.close();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('the call waits until the server is ready, then runs once', async () => {
    rmSync(gate);
    rmSync(join(scratch.dir, 'data', 'tool-cache'), { recursive: true, force: true });
    app = await startGatewayApp(scratch.dir);
    const agent = await connectModernAgent(app.url, token);
    try {
      let answered: string | undefined;
      const called = agent.callTool({ name: 'fx__append', arguments: { line: 'early' } });
      called.then(
        () => (answered = 'answered'),
        (e: unknown) => (answered = `refused: ${(e as Error).message}`),
      );
      const listed = agent.listTools();
      // A round trip after the call: the server is still connecting (its initialize is gated), and the call is not refused.
      await agent.discover();
      expect(
        app.events.some(
          (e) =>
            e.event === 'server.status' &&
            (e.payload as { serverId: string; status: { state: string } }).status.state === 'ready',
        ),
      ).toBe(false);
      expect(answered).toBeUndefined();
      writeFileSync(gate, '');
      const result = await called;
      // The list asked for meanwhile waited too: it is whole, not empty.
      expect((await listed).tools.map((t) => t.name)).toContain('fx__append');
      expect(result.isError).toBeFalsy();
      expect(readFileSync(counter, 'utf8').split('\n').filter(Boolean)).toEqual(['early']);
    } finally {
      await agent.close();
    }
  }, 60_000);
});
