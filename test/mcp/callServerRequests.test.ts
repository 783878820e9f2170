/**
 * A tool call's own answerers (`RequestOptions.asks`) on a 2026-07-28 connection, through the
 * product's client against the v2 dual-era fixture over stdio (a real subprocess): the call's
 * hook answers the server's `input_required` question and the person's handlers are not asked;
 * each round is reported (kinds and who answered); roots stay the configuration's; the rounds
 * stay bounded with a hook too; a cancel while the hook is answering ends the call as cancelled.
 * A legacy server's own request, with its call the only one in flight on stdio, goes to that
 * call's hook too (legacyAsksTied.test.ts ties them by the HTTP stream).
 */
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import type { MCPError } from '../../electron/mcp/errors.js';
import { MCPProtocolError, MCPRequestCancelled } from '../../electron/mcp/errors.js';
import { MAX_INPUT_ROUNDS } from '../../electron/mcp/negotiation.js';
import type { InputRound } from '../../electron/mcp/types.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { scratchDir } from '../helpers/fixtures.js';
import { ScriptedServerRequests } from '../doubles/person/scriptedServerRequests.js';
import { buildModernFixture, modernStdioConfig } from '../doubles/servers/eraPeers.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const clients: MCPClient[] = [];
let scratch: ReturnType<typeof scratchDir>;

function client(config: ServerConfig, serverRequests: ScriptedServerRequests): MCPClient {
  const c = new MCPClient(config, { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes(), serverRequests });
  clients.push(c);
  return c;
}

function config(era: 'modern' | 'legacy'): ServerConfig {
  return modernStdioConfig(
    `call-asks-${era}`,
    era,
    { MODERN_EVENTS: join(scratch.dir, 'events.jsonl') },
    { roots: [scratch.dir] },
  );
}

beforeAll(async () => {
  await buildModernFixture();
});

beforeEach(() => {
  scratch = scratchDir();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  scratch.cleanup();
});

describe("a modern tool call's own answerers", () => {
  it("the call's hook answers the question; the person is not asked; the round is reported", async () => {
    const person = new ScriptedServerRequests();
    const c = client(config('modern'), person);
    await c.initialize();
    const questions: string[] = [];
    const rounds: InputRound[] = [];
    const result = await c.callTool(
      'ask_name',
      {},
      {
        serverRequests: {
          elicit: (question) => {
            questions.push(question.message);
            return Promise.resolve({ action: 'accept', content: { name: 'Ada' } });
          },
        },
        onInputRound: (round) => rounds.push(round),
      },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect(questions).toEqual(['What is your name?']);
    expect(person.received).toEqual([]);
    expect(rounds).toEqual([{ round: 1, requests: [{ kind: 'elicitation', answeredBy: 'agent' }] }]);
  });

  it('without a hook for it, the person answers (a sampling hook does not take an elicitation)', async () => {
    const person = new ScriptedServerRequests();
    const c = client(config('modern'), person);
    await c.initialize();
    const rounds: InputRound[] = [];
    const call = c.callTool(
      'ask_name',
      {},
      {
        serverRequests: { sample: () => Promise.reject(new Error('not asked')) },
        onInputRound: (round) => rounds.push(round),
      },
    );
    const serverRequest = await person.next();
    if (serverRequest.kind === 'elicitation') serverRequest.answer({ action: 'accept', content: { name: 'Lin' } });
    expect((await call).content).toEqual([{ type: 'text', text: 'hello Lin' }]);
    expect(rounds).toEqual([{ round: 1, requests: [{ kind: 'elicitation', answeredBy: 'person' }] }]);
  });

  it('roots are answered from the configuration, whoever made the call', async () => {
    const person = new ScriptedServerRequests();
    const c = client(config('modern'), person);
    await c.initialize();
    const rounds: InputRound[] = [];
    const result = await c.callTool(
      'ask_roots',
      {},
      {
        serverRequests: { elicit: () => Promise.reject(new Error('not asked')) },
        onInputRound: (round) => rounds.push(round),
      },
    );
    expect((result.content[0] as { text: string }).text).toContain('file://');
    expect(rounds).toEqual([{ round: 1, requests: [{ kind: 'roots', answeredBy: 'client' }] }]);
    expect(person.received).toEqual([]);
  });

  it('a server that keeps asking the hook is stopped after the bounded rounds', async () => {
    const person = new ScriptedServerRequests();
    const c = client(config('modern'), person);
    await c.initialize();
    let asked = 0;
    const error = (await c
      .callTool(
        'ask_forever',
        {},
        {
          serverRequests: {
            elicit: () => Promise.resolve({ action: 'accept', content: { name: `round ${++asked}` } }),
          },
        },
      )
      .catch((e: unknown) => e)) as MCPError;
    expect(error).toBeInstanceOf(MCPProtocolError);
    expect(error.message).toMatch(/kept asking for more input/);
    expect(asked).toBe(MAX_INPUT_ROUNDS);
    expect(person.received).toEqual([]);
  });

  it('a cancel while the hook is answering ends the call as cancelled', async () => {
    const person = new ScriptedServerRequests();
    const c = client(config('modern'), person);
    await c.initialize();
    const controller = new AbortController();
    let answering!: () => void;
    const reached = new Promise<void>((resolve) => (answering = resolve));
    const call = c
      .callTool(
        'ask_name',
        {},
        {
          signal: controller.signal,
          serverRequests: {
            elicit: (_question, signal) =>
              new Promise((resolve) => {
                answering();
                signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true });
              }),
          },
        },
      )
      .catch((e: unknown) => e);
    await reached;
    controller.abort();
    expect(await call).toBeInstanceOf(MCPRequestCancelled);
  });

  it("legacy over stdio: the server's request, with this the only call in flight, goes to the call's hook; the round is reported", async () => {
    const person = new ScriptedServerRequests();
    const c = client(config('legacy'), person);
    await c.initialize();
    const rounds: InputRound[] = [];
    const call = await c.callTool(
      'ask_name',
      {},
      {
        serverRequests: { elicit: () => Promise.resolve({ action: 'accept', content: { name: 'Grace' } }) },
        onInputRound: (round) => rounds.push(round),
      },
    );
    expect(call.content).toEqual([{ type: 'text', text: 'hello Grace' }]);
    expect(person.received).toEqual([]);
    expect(rounds).toEqual([{ round: 1, requests: [{ kind: 'elicitation', answeredBy: 'agent' }] }]);
  });

  it('legacy over stdio: a call without a hook of its own asks the person', async () => {
    const person = new ScriptedServerRequests();
    const c = client(config('legacy'), person);
    await c.initialize();
    const rounds: InputRound[] = [];
    const call = c.callTool('ask_name', {}, { onInputRound: (round) => rounds.push(round) });
    const serverRequest = await person.next();
    if (serverRequest.kind === 'elicitation') serverRequest.answer({ action: 'accept', content: { name: 'Lin' } });
    expect((await call).content).toEqual([{ type: 'text', text: 'hello Lin' }]);
    expect(rounds).toEqual([{ round: 1, requests: [{ kind: 'elicitation', answeredBy: 'person' }] }]);
  });
});
