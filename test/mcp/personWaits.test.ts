/**
 * A call that waits for the person is not timed out as if the server were slow, and the person's
 * question ends with the call — in both eras, through the product's client against real servers:
 * - 2025 era (the v1 stdio fixture): the server asks with its own `elicitation/create` request
 *   while the call is in flight; the call's deadline pauses while the person answers;
 * - 2026-07-28 era (the v2 dual-era fixture over stdio and over HTTP): the call's own
 *   `input_required` rounds; the call's total deadline pauses while the person answers.
 * "The server's timeout window has passed" is proven by an event, not a clock: a call started
 * after the question arrived, with the same deadline, has timed out. The window is short, but a
 * loaded machine may take longer than it just to get as far as the question: the call then times
 * out before it asks — which says nothing about what is tested here — and is made again on a new
 * connection with a window twice as long. Which came first, the question or the timeout, decides.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import { MCPRequestCancelled, MCPRequestTimeout } from '../../electron/mcp/errors.js';
import { ServerRequestCallEnded } from '../../electron/mcp/serverRequests.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';
import type { ScriptedServerRequest } from '../doubles/person/scriptedServerRequests.js';
import { ScriptedServerRequests } from '../doubles/person/scriptedServerRequests.js';
import type { NormalizedToolResult } from '../../electron/results/toolResult.js';
import type { ModernHttpFixture } from '../doubles/servers/eraPeers.js';
import {
  buildModernFixture,
  modernHttpConfig,
  modernStdioConfig,
  startModernHttp,
} from '../doubles/servers/eraPeers.js';

/** The server's deadline in these tests at first: short, so the window passes while the person is asked. */
const SERVER_WINDOW_MS = 300;
/** A window this long that still ends before the question is asked is a failure, not load. */
const LONGEST_WINDOW_MS = 20_000;
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
async function windowPassed(client: MCPClient, slowTool: string, windowMs: number): Promise<void> {
  await expect(client.callTool(slowTool, { ms: 60_000 }, { timeoutMs: windowMs })).rejects.toBeInstanceOf(
    MCPRequestTimeout,
  );
}

interface Asked {
  client: MCPClient;
  call: Promise<NormalizedToolResult>;
  serverRequest: ScriptedServerRequest;
  /** The call's deadline (per attempt, and its total when the server's configured total is shorter). */
  windowMs: number;
  controller: AbortController;
}

function isQuestion(value: unknown): value is ScriptedServerRequest {
  return typeof value === 'object' && value !== null && 'kind' in value && 'answer' in value;
}

/**
 * Connects, calls `tool` with the window as its deadline, and resolves once the server asks the
 * person. A call that timed out before it asked is made again (new connection, new person, twice
 * the window); any other end before the question fails the test. The call's rejection is always
 * handled here (a dropped attempt's too), so nothing is left unhandled.
 */
async function callUntilAsked(config: ServerConfig, tool: string, args: Record<string, unknown>): Promise<Asked> {
  for (let windowMs = SERVER_WINDOW_MS; ; windowMs *= 2) {
    const person = new ScriptedServerRequests();
    const client = await connect(config, person);
    const controller = new AbortController();
    const call = client.callTool(tool, args, { timeoutMs: windowMs, signal: controller.signal });
    const ended = call.then(
      () => new Error('the call ended without asking the person'),
      (error: unknown) => error,
    );
    const first = await Promise.race([person.next(), ended]);
    if (isQuestion(first)) return { client, call, serverRequest: first, windowMs, controller };
    if (!(first instanceof MCPRequestTimeout) || windowMs >= LONGEST_WINDOW_MS) throw first;
  }
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
    return stdioFixtureConfig('legacy-person', {
      FIXTURE_TOOLS: 'ask_form,sample,slow',
      FIXTURE_EVENTS: join(scratch.dir, 'events.jsonl'),
    });
  }

  it("the call survives a person answering after the server's timeout window", async () => {
    const { client, call, serverRequest, windowMs } = await callUntilAsked(legacy(), 'ask_form', {
      message: 'Your name?',
      requestedSchema: FORM,
    });
    // A call started after the question is not waiting for it: its deadline runs, and ends it.
    await windowPassed(client, 'slow', windowMs);
    expect(serverRequest.signal.aborted).toBe(false);
    if (serverRequest.kind !== 'elicitation') throw new Error('expected an elicitation');
    serverRequest.answer({ action: 'accept', content: { name: 'Ada' } });
    expect((await call).structuredContent).toEqual({ answer: { action: 'accept', content: { name: 'Ada' } } });
  });

  it("a sampling request too: the call survives a person writing the response after the server's timeout window", async () => {
    const { client, call, serverRequest, windowMs } = await callUntilAsked(legacy(), 'sample', {
      prompt: 'Say hi',
      maxTokens: 20,
    });
    await windowPassed(client, 'slow', windowMs);
    if (serverRequest.kind !== 'sampling') throw new Error('expected a sampling request');
    serverRequest.answer({ action: 'respond', text: 'hi', model: 'human' });
    expect((await call).structuredContent).toMatchObject({
      answer: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'human' },
    });
  });

  it('the call ending closes its question, saying the call ended', async () => {
    const { call, serverRequest, controller } = await callUntilAsked(legacy(), 'ask_form', {
      message: 'Your name?',
      requestedSchema: FORM,
    });
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(MCPRequestCancelled);
    expect(serverRequest.signal.aborted).toBe(true);
    expect(serverRequest.signal.reason).toBeInstanceOf(ServerRequestCallEnded);
  });
});

describe('2026-07-28 era: the call asks through its input_required rounds', () => {
  // The call's total may be shorter than the person's answer: the total pauses while they answer.
  // The configured total is the least there is, so each call's window is its total as well.
  const peers = {
    stdio: (): ServerConfig => modernStdioConfig('modern-person', 'modern', {}, { maxTotalTimeoutMs: 100 }),
    http: (): ServerConfig => modernHttpConfig('modern-person-http', http, 'modern', { maxTotalTimeoutMs: 100 }),
  };

  for (const [transport, config] of Object.entries(peers)) {
    it(`the call survives a person answering after its whole deadline would have passed (${transport})`, async () => {
      const { client, call, serverRequest, windowMs } = await callUntilAsked(config(), 'ask_name', {});
      await windowPassed(client, 'slow', windowMs);
      expect(serverRequest.signal.aborted).toBe(false);
      if (serverRequest.kind !== 'elicitation') throw new Error('expected an elicitation');
      serverRequest.answer({ action: 'accept', content: { name: 'Ada' } });
      expect((await call).content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    });

    it(`the call ending closes its question, saying the call ended (${transport})`, async () => {
      const { call, serverRequest, controller } = await callUntilAsked(config(), 'ask_name', {});
      controller.abort();
      await expect(call).rejects.toBeInstanceOf(MCPRequestCancelled);
      expect(serverRequest.signal.reason).toBeInstanceOf(ServerRequestCallEnded);
    });
  }
});
