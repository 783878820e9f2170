/**
 * Every progress notification a server sends before its result reaches the agent, before the
 * result — also when the server's messages arrive together (a busy server, a loaded machine: the
 * conformance suite's `tools-call-with-progress` lost 50 and 100 that way through the gateway).
 * The stdio double writes progress 0, 50, 100 and its result in one write, so the app's client
 * reads them in one chunk, every run. Real app core + gateway, the double over stdio, a 2025 agent
 * (the v2 SDK's Client in legacy mode) collecting progress with `onprogress`.
 */
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, startGatewayApp } from './support.js';

describe('progress read in the same chunk as the result', () => {
  const scratch = scratchDir('mh-gateway-progress-burst-');
  let app: GatewayApp;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'burst', { FIXTURE_TOOLS: 'progress_burst' }, ['progress_burst']);
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('reaches a 2025 agent in full, before the result', async () => {
    const agent = await app.createAgent('Progress watcher');
    const client = new Client({ name: 'progress-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(
      new StreamableHTTPClientTransport(app.url, {
        requestInit: { headers: { Authorization: `Bearer ${agent.token}` } },
      }),
    );
    try {
      const seen: Array<number | 'result'> = [];
      const result = client
        .callTool({ name: 'burst__progress_burst', arguments: {} }, { onprogress: (p) => seen.push(p.progress) })
        .then((answer) => {
          seen.push('result');
          return answer;
        });
      expect(((await result).content as Array<{ text?: string }>)[0]?.text).toBe('progress burst done');
      expect(seen).toEqual([0, 50, 100, 'result']);
    } finally {
      await client.close();
    }
  });
});
