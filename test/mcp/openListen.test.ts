/**
 * Auto era against a 2026-07-28 server that answers `subscriptions/listen` as `application/json`
 * and never finishes the response (openListenServer.ts): the connection is ready as soon as
 * `server/discover` is answered — the listen stream for list changes is opened beside it, and
 * when the server does not acknowledge it in time the log says so (list changes are then not
 * seen live) and the held request is given up. Before the fix the connect waited on the listen
 * stream and failed "did not answer initialize within N ms", though discover had been answered.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import { LogBuffer } from '../../electron/mcp/logBuffer.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import type { OpenListenServer } from '../doubles/servers/openListenServer.js';
import { startOpenListenServer } from '../doubles/servers/openListenServer.js';
import { testSandboxes } from '../helpers/sandboxes.js';

let server: OpenListenServer;
const clients: MCPClient[] = [];

beforeEach(async () => {
  server = await startOpenListenServer();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

function client(log: LogBuffer, timeoutMs: number): MCPClient {
  const c = new MCPClient(
    HttpServerConfigSchema.parse({
      id: 'open-listen',
      name: 'Open listen',
      transport: 'streamable_http',
      url: server.url,
      timeoutMs,
      protocolEra: 'auto',
    }),
    { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes(), log },
  );
  clients.push(c);
  return c;
}

/** The first log line (already written or coming) that matches. */
function lineOf(log: LogBuffer, pattern: RegExp): Promise<string> {
  const seen = log.all().find((line) => pattern.test(line.text));
  if (seen) return Promise.resolve(seen.text);
  return new Promise((resolve) => {
    const stop = log.subscribe((line) => {
      if (!pattern.test(line.text)) return;
      stop();
      resolve(line.text);
    });
  });
}

describe('auto era: a server whose subscriptions/listen answer never ends', () => {
  it('connects on the discover answer; tools work; the log says the listen stream was not acknowledged', async () => {
    const log = new LogBuffer();
    const unacknowledged = lineOf(log, /subscriptions\/listen/);
    const c = client(log, 2_000);
    const info = await c.initialize();
    expect(info.era).toBe('modern');
    expect((await c.listTools()).map((t) => t.name)).toContain('echo');
    expect((await c.callTool('echo', { text: 'still here' })).content).toEqual([{ type: 'text', text: 'still here' }]);
    expect(await unacknowledged).toMatch(
      /did not acknowledge subscriptions\/listen within 2000 ms .*not seen live until it reconnects/,
    );
    // The held request was given up: the server sees its connection closed.
    await server.aListenClosed;
    expect(server.listens).toBe(1);
    expect(c.state).toBe('ready');
  });
});
