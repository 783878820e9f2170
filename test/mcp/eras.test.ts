/**
 * Both protocol eras through the product's client (`MCPClient` on the v2 SDK), against real peers:
 * the v2 dual-era fixture over stdio (a subprocess) and over HTTP (loopback), and the v1 fixture
 * as a legacy-only server. What matters runs in both eras: the negotiation and the era kept,
 * tools, resources, prompts, a deadline that cancels on the wire, close, and an elicitation that
 * reaches the person's handler — as `input_required` rounds on a modern request, as a real
 * server→client request on a legacy one — never answered by anything else, in bounded rounds.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import type { MCPError } from '../../electron/mcp/errors.js';
import {
  MCPClientClosedError,
  MCPConfigError,
  MCPNotInitializedError,
  MCPProtocolError,
  MCPRequestTimeout,
} from '../../electron/mcp/errors.js';
import { getPrompt } from '../../electron/mcp/features/prompts.js';
import { readResource, subscribeResource } from '../../electron/mcp/features/resources.js';
import { MAX_INPUT_ROUNDS, MODERN_PROTOCOL_VERSION } from '../../electron/mcp/negotiation.js';
import type { ServerRequestHandlers } from '../../electron/mcp/serverRequests.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { readEvents, scratchDir, waitFor } from '../helpers/fixtures.js';
import { ScriptedServerRequests } from '../doubles/person/scriptedServerRequests.js';
import type { ModernHttpFixture } from '../doubles/servers/eraPeers.js';
import {
  buildModernFixture,
  legacyStdioConfig,
  modernHttpConfig,
  modernStdioConfig,
  startModernHttp,
} from '../doubles/servers/eraPeers.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const clients: MCPClient[] = [];
function client(config: ServerConfig, serverRequests?: ServerRequestHandlers): MCPClient {
  const c = new MCPClient(config, {
    secrets: new DefaultSecretResolver(),
    sandboxes: testSandboxes(),
    ...(serverRequests ? { serverRequests } : {}),
  });
  clients.push(c);
  return c;
}

let http: ModernHttpFixture;
let scratch: ReturnType<typeof scratchDir>;
let events: string;

beforeAll(async () => {
  await buildModernFixture();
});
beforeEach(async () => {
  scratch = scratchDir();
  events = join(scratch.dir, 'events.jsonl');
  http = await startModernHttp({ events, name: 'modern-http', instructions: 'Use echo.' });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await http.close();
  scratch.cleanup();
});
afterAll(() => undefined);

type Transport = 'stdio' | 'http';
const TRANSPORTS: Transport[] = ['stdio', 'http'];

function dualEraConfig(
  transport: Transport,
  era: 'auto' | 'legacy' | 'modern',
  id = `${transport}-${era}`,
): ServerConfig {
  return transport === 'stdio'
    ? modernStdioConfig(id, era, {
        MODERN_EVENTS: events,
        MODERN_NAME: 'modern-stdio',
        MODERN_INSTRUCTIONS: 'Use echo.',
      })
    : modernHttpConfig(id, http, era);
}

describe.each(TRANSPORTS)('negotiation over %s', (transport) => {
  it('auto against a server that speaks 2026-07-28 ends modern, with the discover result kept as sent', async () => {
    const c = client(dualEraConfig(transport, 'auto'));
    const info = await c.initialize();
    expect(info.era).toBe('modern');
    expect(info.verdictSource).toBe('probe');
    expect(info.protocolVersion).toBe(MODERN_PROTOCOL_VERSION);
    expect(info.discover?.supportedVersions).toContain(MODERN_PROTOCOL_VERSION);
    expect(info.serverInfo.name).toBe(transport === 'stdio' ? 'modern-stdio' : 'modern-http');
    expect(info.instructions).toBe('Use echo.');
    expect(info.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {}, logging: {} });
    if (transport === 'http') {
      // Stateless: no initialize reached the server, and every request named its method in a header.
      expect(http.methods).not.toContain('initialize');
      expect(http.methods[0]).toBe('server/discover');
    }
  });

  it('a legacy pin against the same server ends legacy, through initialize', async () => {
    const c = client(dualEraConfig(transport, 'legacy'));
    const info = await c.initialize();
    expect(info.era).toBe('legacy');
    expect(info.verdictSource).toBe('pinned');
    expect(info.discover).toBeUndefined();
    expect(info.protocolVersion).not.toBe(MODERN_PROTOCOL_VERSION);
    if (transport === 'http') {
      expect(http.methods).toContain('initialize');
      expect(http.methods).not.toContain('server/discover');
    }
  });

  it('a modern pin ends modern', async () => {
    const info = await client(dualEraConfig(transport, 'modern')).initialize();
    expect(info).toMatchObject({ era: 'modern', verdictSource: 'pinned', protocolVersion: MODERN_PROTOCOL_VERSION });
  });
});

describe('standard headers (modern HTTP)', () => {
  it('every modern request names its method in Mcp-Method; legacy requests do not', async () => {
    const modern = client(dualEraConfig('http', 'auto', 'headers-modern'));
    await modern.initialize();
    await modern.listTools();
    await modern.callTool('echo', { text: 'h' });
    const count = http.methods.length;
    expect(http.methodHeaders.slice(0, count)).toEqual(http.methods.slice(0, count));
    await modern.close();

    const legacy = client(dualEraConfig('http', 'legacy', 'headers-legacy'));
    await legacy.initialize();
    await legacy.callTool('echo', { text: 'h' });
    expect(http.methodHeaders.slice(count).every((header) => header === '')).toBe(true);
  });
});

describe('negotiation with a legacy-only (v1) server', () => {
  it('auto probes, falls back to initialize and ends legacy', async () => {
    const info = await client(legacyStdioConfig('v1-auto', 'auto')).initialize();
    expect(info).toMatchObject({ era: 'legacy', verdictSource: 'probe' });
    expect(info.discover).toBeUndefined();
  });

  it('a modern pin fails with an error that says to change the pin', async () => {
    const error = (await client(legacyStdioConfig('v1-modern', 'modern'))
      .initialize()
      .catch((e: unknown) => e)) as MCPError;
    expect(error).toBeInstanceOf(MCPConfigError);
    expect(error.message).toMatch(/settings pin the Modern protocol era/);
    expect(error.message).toMatch(/Set Protocol era to Automatic/);
  });
});

describe.each(TRANSPORTS)('the same features in both eras over %s', (transport) => {
  describe.each(['modern', 'legacy'] as const)('%s era', (era) => {
    const setting = era === 'modern' ? 'auto' : 'legacy';

    it('refuses requests before negotiation and after close; close is idempotent', async () => {
      const c = client(dualEraConfig(transport, setting));
      await expect(c.listTools()).rejects.toBeInstanceOf(MCPNotInitializedError);
      await c.initialize();
      expect(c.negotiated?.era).toBe(era);
      await Promise.all([c.close(), c.close()]);
      await c.close();
      await expect(c.callTool('echo', { text: 'x' })).rejects.toBeInstanceOf(MCPClientClosedError);
      expect(c.state).toBe('closed');
    });

    it('lists and calls tools, reads a resource and gets a prompt', async () => {
      const c = client(dualEraConfig(transport, setting));
      await c.initialize();
      const tools = (await c.listTools()).map((t) => t.name).sort();
      expect(tools).toEqual(['ask_forever', 'ask_name', 'ask_roots', 'ask_sample', 'echo', 'log', 'slow']);
      const result = await c.callTool('echo', { text: `hi ${era}` });
      expect(result).toEqual({
        content: [{ type: 'text', text: `hi ${era}` }],
        structuredContent: undefined,
        isError: false,
      });
      const resource = await c.featureRequest('resources/read', (sdk, options) =>
        readResource(sdk, 'mem://greeting', options),
      );
      expect(resource.contents[0]).toMatchObject({ uri: 'mem://greeting', text: 'hello from the modern fixture' });
      const missing = (await c
        .featureRequest('resources/read', (sdk, options) => readResource(sdk, 'mem://nothing', options))
        .catch((e: unknown) => e)) as MCPError;
      expect(missing.message).toMatch(/the resource was not found/);
      const prompt = await c.featureRequest('prompts/get', (sdk, options) =>
        getPrompt(sdk, 'greet', { name: 'Ada' }, options),
      );
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Say hello to Ada.' });
    });

    it('a request past its deadline fails as a timeout and is withdrawn on the wire', async () => {
      const c = client(dualEraConfig(transport, setting));
      await c.initialize();
      const error = await c.callTool('slow', { ms: 20_000 }, { timeoutMs: 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MCPRequestTimeout);
      if (transport === 'http' && era === 'legacy') {
        // A stateless legacy server answers each POST on a fresh instance: the withdrawal is a
        // notifications/cancelled it receives (the instance running the call cannot hear it).
        await waitFor(() => http.methods.includes('notifications/cancelled'), 5_000);
      } else {
        // The server saw the withdrawal (notifications/cancelled, or the modern HTTP response stream closed).
        await waitFor(() => readEvents(events).some((e) => e.event === 'cancelled'), 5_000);
      }
      // The connection is still usable.
      expect((await c.callTool('echo', { text: 'after' })).content).toEqual([{ type: 'text', text: 'after' }]);
    });
  });
});

describe('an elicitation reaches the person in both eras (stdio)', () => {
  it.each(['modern', 'legacy'] as const)('%s: the ask handler answers, and the tool gets the answer', async (era) => {
    const serverRequests = new ScriptedServerRequests();
    const c = client(dualEraConfig('stdio', era === 'modern' ? 'auto' : 'legacy'), serverRequests);
    await c.initialize();
    expect(c.negotiated?.era).toBe(era);
    const call = c.callTool('ask_name', {});
    const serverRequest = await serverRequests.next();
    expect(serverRequest.kind).toBe('elicitation');
    if (serverRequest.kind !== 'elicitation') return;
    expect(serverRequest.serverRequest).toMatchObject({ mode: 'form', message: 'What is your name?' });
    serverRequest.answer({ action: 'accept', content: { name: 'Ada' } });
    expect((await call).content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect(serverRequests.received).toHaveLength(1);
  });

  it.each(['modern', 'legacy'] as const)(
    '%s: a sampling request reaches the person, whose text is the answer',
    async (era) => {
      const serverRequests = new ScriptedServerRequests();
      const c = client(dualEraConfig('stdio', era === 'modern' ? 'auto' : 'legacy'), serverRequests);
      await c.initialize();
      const call = c.callTool('ask_sample', {});
      const serverRequest = await serverRequests.next();
      expect(serverRequest.kind).toBe('sampling');
      if (serverRequest.kind === 'sampling')
        serverRequest.answer({ action: 'respond', text: 'hi there', model: 'person' });
      expect((await call).content).toEqual([{ type: 'text', text: 'model said: hi there' }]);
    },
  );

  it.each(['modern', 'legacy'] as const)('%s: roots come from the configuration, not from a person', async (era) => {
    const serverRequests = new ScriptedServerRequests();
    const c = client(dualEraConfig('stdio', era === 'modern' ? 'auto' : 'legacy'), serverRequests);
    await c.setRoots([scratch.dir]); // before the connection: declared when it starts
    await c.initialize();
    const result = await c.callTool('ask_roots', {});
    expect(result.content).toEqual([{ type: 'text', text: pathToFileURL(scratch.dir).href }]);
    expect(serverRequests.received).toEqual([]);
  });

  it('modern: a declined answer is what the tool sees; nothing answers for the person', async () => {
    const serverRequests = new ScriptedServerRequests();
    const c = client(dualEraConfig('stdio', 'auto'), serverRequests);
    await c.initialize();
    const call = c.callTool('ask_name', {});
    const serverRequest = await serverRequests.next();
    if (serverRequest.kind === 'elicitation') serverRequest.answer({ action: 'decline' });
    expect((await call).content).toEqual([{ type: 'text', text: 'declined' }]);
  });

  it('modern: a server that keeps asking is stopped after a bounded number of rounds', async () => {
    const serverRequests = new ScriptedServerRequests();
    const c = client(dualEraConfig('stdio', 'auto'), serverRequests);
    await c.initialize();
    const call = c.callTool('ask_forever', {}).catch((e: unknown) => e);
    for (let round = 0; round < MAX_INPUT_ROUNDS; round++) {
      const serverRequest = await serverRequests.next();
      if (serverRequest.kind === 'elicitation')
        serverRequest.answer({ action: 'accept', content: { name: `round ${round}` } });
    }
    const error = (await call) as MCPError;
    expect(error).toBeInstanceOf(MCPProtocolError);
    expect(error.message).toMatch(/kept asking for more input/);
    expect(serverRequests.received.length).toBeLessThanOrEqual(MAX_INPUT_ROUNDS + 1);
  });

  it('modern: without a person to ask, the request fails; no answer is made up', async () => {
    const c = client(dualEraConfig('stdio', 'auto'));
    await c.initialize();
    const error = await c.callTool('ask_name', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(readEvents(events).filter((e) => e.event === 'tools/call').length).toBe(1);
  });
});

describe.each(TRANSPORTS)('server logs in both eras over %s', (transport) => {
  function messageLevels(c: MCPClient): string[] {
    return c.log
      .all()
      .filter((line) => line.stream === 'message')
      .map((line) => line.level ?? '');
  }

  it('modern: the chosen level travels with the call, and only what passes it arrives', async () => {
    const c = client(dualEraConfig(transport, 'auto'));
    await c.initialize();
    await c.callTool('log', {});
    expect(messageLevels(c)).toEqual([]); // no level sent: the server sends none (absence is opt-out)
    await c.setLoggingLevel('warning');
    await c.callTool('log', {});
    expect(messageLevels(c)).toEqual(['warning', 'error', 'critical', 'alert', 'emergency']);
    if (transport === 'http') expect(http.methods).not.toContain('logging/setLevel');
  });
});

describe('live lists and resource subscriptions on a modern server (subscriptions/listen over HTTP)', () => {
  it('a tool list change reaches the list listeners, without list_changed on a GET stream', async () => {
    const c = client(dualEraConfig('http', 'auto'));
    await c.initialize();
    let changed = false;
    c.onListChanged('tools', () => (changed = true));
    // The SDK opens the listen stream for the lists the server says change; each poll publishes
    // one change (the first ones may come before the stream is acknowledged).
    // Polled slower than the client's 50 ms debounce, which a change every poll would keep resetting.
    await waitFor(
      () => {
        http.handler.notify.toolsChanged();
        return changed;
      },
      5_000,
      200,
    );
    expect(http.methods).toContain('subscriptions/listen');
  });

  it("a subscribed resource's update arrives through its listen stream", async () => {
    const c = client(dualEraConfig('http', 'auto'));
    await c.initialize();
    const updates: string[] = [];
    c.attachFeatureHandlers((sdk) =>
      sdk.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri)),
    );
    await c.featureRequest('resources/subscribe', (sdk, options) => subscribeResource(sdk, 'mem://greeting', options));
    http.handler.notify.resourceUpdated('mem://greeting');
    await waitFor(() => updates.length > 0, 5_000);
    expect(updates[0]).toBe('mem://greeting');
    expect(http.methods).not.toContain('resources/subscribe');
  });
});
