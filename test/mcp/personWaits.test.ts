/**
 * A call that waits for the person is not timed out as if the server were slow, and the person's
 * question ends with the call — in both eras, through the product's client against real servers:
 * - 2025 era (the v1 stdio fixture): the server asks with its own `elicitation/create` request
 *   while the call is in flight; the call's deadline pauses while the person answers;
 * - 2026-07-28 era (the v2 dual-era fixture over stdio and over HTTP): the call's own
 *   `input_required` rounds; the call's total deadline pauses while the person answers.
 * "The server's timeout window has passed" is proven by an event, not a clock: a call started
 * after the question arrived, with the same deadline, has timed out.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import { MCPRequestCancelled, MCPRequestTimeout } from '../../electron/mcp/errors.js';
import { ServerRequestCallEnded } from '../../electron/mcp/serverRequests.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';
import { ScriptedServerRequests } from '../doubles/person/scriptedServerRequests.js';
import type { ModernHttpFixture } from '../doubles/servers/eraPeers.js';
import {
  buildModernFixture,
  modernHttpConfig,
  modernStdioConfig,
  startModernHttp,
} from '../doubles/servers/eraPeers.js';

/** The server's deadline in these tests: short, so the window passes while the person is asked. */
const SERVER_WINDOW_MS = 300;
const FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

let scratch: ReturnType<typeof scratchDir>;
let http: ModernHttpFixture;
const clients: MCPClient[] = [];

async function connect(config: ServerConfig, serverRequests: ScriptedServerRequests): Promise<MCPClient> {
  const client = new MCPClient(config, { secrets: new DefaultSecretResolver(), serverRequests });
  clients.push(client);
  // The connect has the usual room: only the calls get the short window.
  await client.initialize({ timeoutMs: 20_000 });
  return client;
}

/** Resolves once a call started now, with the server's deadline, has timed out: the window has passed. */
async function windowPassed(client: MCPClient, slowTool: string): Promise<void> {
  await expect(client.callTool(slowTool, { ms: 60_000 }, { timeoutMs: SERVER_WINDOW_MS })).rejects.toBeInstanceOf(
    MCPRequestTimeout,
  );
}

beforeAll(async () => {
  await buildModernFixture();
  http = await startModernHttp();
});
afterAll(async () => {
  await http.close();
});
beforeEach(() => {
  scratch = scratchDir();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  scratch.cleanup();
});

describe('2025 era: the server asks with its own request during the call (stdio)', () => {
  function legacy(): ServerConfig {
    return stdioFixtureConfig(
      'legacy-person',
      { FIXTURE_TOOLS: 'ask_form,sample,slow', FIXTURE_EVENTS: join(scratch.dir, 'events.jsonl') },
      { timeoutMs: SERVER_WINDOW_MS },
    );
  }

  it("the call survives a person answering after the server's timeout window", async () => {
    const person = new ScriptedServerRequests();
    const client = await connect(legacy(), person);
    const call = client.callTool('ask_form', { message: 'Your name?', requestedSchema: FORM });
    const serverRequest = await person.next();
    // A call started after the question is not waiting for it: its deadline runs, and ends it.
    await windowPassed(client, 'slow');
    expect(serverRequest.signal.aborted).toBe(false);
    if (serverRequest.kind !== 'elicitation') throw new Error('expected an elicitation');
    serverRequest.answer({ action: 'accept', content: { name: 'Ada' } });
    expect((await call).structuredContent).toEqual({ answer: { action: 'accept', content: { name: 'Ada' } } });
  });

  it("a sampling request too: the call survives a person writing the response after the server's timeout window", async () => {
    const person = new ScriptedServerRequests();
    const client = await connect(legacy(), person);
    const call = client.callTool('sample', { prompt: 'Say hi', maxTokens: 20 });
    const serverRequest = await person.next();
    await windowPassed(client, 'slow');
    if (serverRequest.kind !== 'sampling') throw new Error('expected a sampling request');
    serverRequest.answer({ action: 'respond', text: 'hi', model: 'human' });
    expect((await call).structuredContent).toMatchObject({
      answer: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'human' },
    });
  });

  it('the call ending closes its question, saying the call ended', async () => {
    const person = new ScriptedServerRequests();
    const client = await connect(legacy(), person);
    const controller = new AbortController();
    const call = client.callTool(
      'ask_form',
      { message: 'Your name?', requestedSchema: FORM },
      { signal: controller.signal },
    );
    const serverRequest = await person.next();
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(MCPRequestCancelled);
    expect(serverRequest.signal.aborted).toBe(true);
    expect(serverRequest.signal.reason).toBeInstanceOf(ServerRequestCallEnded);
  });
});

describe('2026-07-28 era: the call asks through its input_required rounds', () => {
  // The call's total may be shorter than the person's answer: the total pauses while they answer.
  const peers = {
    stdio: (): ServerConfig =>
      modernStdioConfig(
        'modern-person',
        'modern',
        {},
        { timeoutMs: SERVER_WINDOW_MS, maxTotalTimeoutMs: SERVER_WINDOW_MS },
      ),
    http: (): ServerConfig =>
      modernHttpConfig('modern-person-http', http, 'modern', {
        timeoutMs: SERVER_WINDOW_MS,
        maxTotalTimeoutMs: SERVER_WINDOW_MS,
      }),
  };

  for (const [transport, config] of Object.entries(peers)) {
    it(`the call survives a person answering after its whole deadline would have passed (${transport})`, async () => {
      const person = new ScriptedServerRequests();
      const client = await connect(config(), person);
      const call = client.callTool('ask_name', {});
      const serverRequest = await person.next();
      await windowPassed(client, 'slow');
      expect(serverRequest.signal.aborted).toBe(false);
      if (serverRequest.kind !== 'elicitation') throw new Error('expected an elicitation');
      serverRequest.answer({ action: 'accept', content: { name: 'Ada' } });
      expect((await call).content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    });

    it(`the call ending closes its question, saying the call ended (${transport})`, async () => {
      const person = new ScriptedServerRequests();
      const client = await connect(config(), person);
      const controller = new AbortController();
      const call = client.callTool('ask_name', {}, { signal: controller.signal });
      const serverRequest = await person.next();
      controller.abort();
      await expect(call).rejects.toBeInstanceOf(MCPRequestCancelled);
      expect(serverRequest.signal.reason).toBeInstanceOf(ServerRequestCallEnded);
    });
  }
});
