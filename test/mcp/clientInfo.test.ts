/**
 * What the client reports itself as: the app's version, passed down through the registry (the
 * app core gives it `options.version`: Electron's app version, or package.json in browser mode),
 * seen by a real stdio server in its `initialize` request — not a number written in the client.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_NAME } from '../../electron/mcp/client.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { readEvents, scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';
import { testSandboxes } from '../helpers/sandboxes.js';

describe("the client's reported version", () => {
  let scratch: ReturnType<typeof scratchDir>;
  let registry: MCPToolRegistry | undefined;

  beforeEach(() => {
    scratch = scratchDir();
  });
  afterEach(async () => {
    await registry?.close();
    scratch.cleanup();
  });

  it("is the app's version the registry was given", async () => {
    const events = join(scratch.dir, 'events.jsonl');
    registry = new MCPToolRegistry({
      secrets: new DefaultSecretResolver(),
      sandboxes: testSandboxes(),
      clientVersion: '9.8.7-test',
    });
    registry.addServer(stdioFixtureConfig('fx', { FIXTURE_EVENTS: events, FIXTURE_TOOLS: 'echo' }));
    await registry.connect('fx');
    const initialize = readEvents(events).find((event) => event.event === 'initialize') as
      { clientInfo?: unknown } | undefined;
    expect(initialize?.clientInfo).toEqual({ name: CLIENT_NAME, version: '9.8.7-test' });
  });
});
