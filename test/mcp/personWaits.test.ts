/**
 * A call that waits for the person is not timed out as if the server were slow, and the person's
 * question ends with the call — in both eras, through the product's client against real servers:
 * - 2025 era (the v1 stdio fixture): the server asks with its own `elicitation/create` request
 *   while the call is in flight; the call's deadline pauses while the person answers;
 * - 2026-07-28 era (the v2 dual-era fixture over stdio and over HTTP): the call's own
 *   `input_required` rounds; the call's total deadline pauses while the person answers.
 * "The server's timeout window has passed" is proven by an event, not a clock: a call started
 * after the question arrived, with the same deadline, has timed out, and the call has not. The
 * window is short, but a loaded machine may take longer than it for what is not tested here —
 * getting as far as the question, or finishing once answered: the call then times out outside the
 * person's wait, and the scenario is run again on a new connection with a window twice as long.
 * Events decide (which came first: the question or the timeout), never a wall-clock margin.
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
import { testSandboxes } from '../helpers/sandboxes.js';

/** The server's deadline in these tests at first: short, so the window passes while the person is asked. */
const SERVER_WINDOW_MS = 300;
/** A window this long that still times out outside the person's wait is a failure, not load. */
const LONGEST_WINDOW_MS = 20_000;
const FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

let scratch: ReturnType<typeof scratchDir>;
let http: ModernHttpFixture;
const clients: MCPClient[] = [];

async function connect(config: ServerConfig, serverRequests: ScriptedServerRequests): Promise<MCPClient> {
  const client = new MCPClient(config, {
    secrets: new DefaultSecretResolver(),
    sandboxes: testSandboxes(),
    serverRequests,
  });
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
  serverRequest: ScriptedServerRequest;
  /** How the call ended (it is always handled, so no rejection is left unhandled). */
  outcome: Promise<{ ok: true; result: NormalizedToolResult } | { ok: false; error: unknown }>;
  /** Whether the call has ended yet. */
  settled(): boolean;
  controller: AbortController;
}

function isQuestion(value: unknown): value is ScriptedServerRequest {
  return typeof value === 'object' && value !== null && 'kind' in value && 'answer' in value;
}

/**
 * Connects, calls `tool` with `windowMs` as its deadline, and resolves once the server asks the
 * person — or with `timed out` when the call timed out before it asked (a loaded machine took
 * longer than the window to get that far). Any other end before the question fails the test.
 */
async function askOnce(
  config: ServerConfig,
  tool: string,
  args: Record<string, unknown>,
  windowMs: number,
): Promise<Asked | 'timed out'> {
  const person = new ScriptedServerRequests();
  const client = await connect(config, person);
  const controller = new AbortController();
  let settled = false;
  const outcome = client.callTool(tool, args, { timeoutMs: windowMs, signal: controller.signal }).then(
    (result) => ((settled = true), { ok: true as const, result }),
    (error: unknown) => ((settled = true), { ok: false as const, error }),
  );
  const first = await Promise.race([person.next(), outcome]);
  if (isQuestion(first)) return { client, serverRequest: first, outcome, settled: () => settled, controller };
  if (!first.ok && first.error instanceof MCPRequestTimeout) return 'timed out';
  throw first.ok ? new Error('the call ended without asking the person') : first.error;
}

/** The windows tried in turn: each twice the last, up to LONGEST_WINDOW_MS. */
function* windows(): Generator<number> {
  for (let windowMs = SERVER_WINDOW_MS; windowMs <= LONGEST_WINDOW_MS; windowMs *= 2) yield windowMs;
  throw new Error(`even a window of ${LONGEST_WINDOW_MS} ms timed out outside the person's wait`);
}

/** The call, asked: on a new connection with a longer window each time the call timed out before it asked. */
async function callUntilAsked(config: ServerConfig, tool: string, args: Record<string, unknown>): Promise<Asked> {
  for (const windowMs of windows()) {
    const asked = await askOnce(config, tool, args, windowMs);
    if (asked !== 'timed out') return asked;
  }
  throw new Error('unreachable');
}

/**
 * "The call survives a person answering after its window": the call asks; a call started after
 * the question times out (the window has passed); the call is still waiting — its deadline does
 * not run while the person is asked; the person answers, and the call's result is returned.
 * A loaded machine may take longer than the window for what is not under test — getting as far as
 * the question, or finishing once answered — and the call then times out outside the person's
 * wait: the whole scenario is run again, on a new connection, with a window twice as long.
 */
async function survivesTheWindow(
  config: ServerConfig,
  tool: string,
  args: Record<string, unknown>,
  answer: (serverRequest: ScriptedServerRequest) => void,
): Promise<NormalizedToolResult> {
  for (const windowMs of windows()) {
    const asked = await askOnce(config, tool, args, windowMs);
    if (asked === 'timed out') continue;
    await windowPassed(asked.client, 'slow', windowMs);
    expect(asked.settled()).toBe(false);
    expect(asked.serverRequest.signal.aborted).toBe(false);
    answer(asked.serverRequest);
    const outcome = await asked.outcome;
    if (outcome.ok) return outcome.result;
    if (!(outcome.error instanceof MCPRequestTimeout)) throw outcome.error;
  }
  throw new Error('unreachable');
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
    const result = await survivesTheWindow(
      legacy(),
      'ask_form',
      { message: 'Your name?', requestedSchema: FORM },
      (serverRequest) => {
        if (serverRequest.kind !== 'elicitation') throw new Error('expected an elicitation');
        serverRequest.answer({ action: 'accept', content: { name: 'Ada' } });
      },
    );
    expect(result.structuredContent).toEqual({ answer: { action: 'accept', content: { name: 'Ada' } } });
  });

  it("a sampling request too: the call survives a person writing the response after the server's timeout window", async () => {
    const result = await survivesTheWindow(legacy(), 'sample', { prompt: 'Say hi', maxTokens: 20 }, (serverRequest) => {
      if (serverRequest.kind !== 'sampling') throw new Error('expected a sampling request');
      serverRequest.answer({ action: 'respond', text: 'hi', model: 'human' });
    });
    expect(result.structuredContent).toMatchObject({
      answer: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'human' },
    });
  });

  it('the call ending closes its question, saying the call ended', async () => {
    const { outcome, serverRequest, controller } = await callUntilAsked(legacy(), 'ask_form', {
      message: 'Your name?',
      requestedSchema: FORM,
    });
    controller.abort();
    expect(await outcome).toMatchObject({ ok: false, error: expect.any(MCPRequestCancelled) });
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
      const result = await survivesTheWindow(config(), 'ask_name', {}, (serverRequest) => {
        if (serverRequest.kind !== 'elicitation') throw new Error('expected an elicitation');
        serverRequest.answer({ action: 'accept', content: { name: 'Ada' } });
      });
      expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    });

    it(`the call ending closes its question, saying the call ended (${transport})`, async () => {
      const { outcome, serverRequest, controller } = await callUntilAsked(config(), 'ask_name', {});
      controller.abort();
      expect(await outcome).toMatchObject({ ok: false, error: expect.any(MCPRequestCancelled) });
      expect(serverRequest.signal.reason).toBeInstanceOf(ServerRequestCallEnded);
    });
  }
});
