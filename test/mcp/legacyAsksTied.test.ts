/**
 * A 2025 server's own request (elicitation) during a tool call, over HTTP, through the product's
 * client against a real v1 SDK server on loopback (http-server.ts, sessionful): a request the
 * server sends related to a call arrives on that call's response stream, so it goes to that
 * call's own answerer — even with two calls in flight at once, each gets its own question; the
 * person is not asked. A request sent on the session's GET stream is tied to no call: the person
 * answers it. Before the fix, every such request went to the person.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import type { InputRound } from '../../electron/mcp/types.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import type { HttpFixture } from '../doubles/servers/http-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import { ScriptedServerRequests } from '../doubles/person/scriptedServerRequests.js';
import { testSandboxes } from '../helpers/sandboxes.js';

let server: HttpFixture;
let client: MCPClient;
let person: ScriptedServerRequests;

beforeEach(async () => {
  server = await startHttpFixture({ tools: ['ask', 'ask_aside'] });
  person = new ScriptedServerRequests();
  client = new MCPClient(
    HttpServerConfigSchema.parse({
      id: 'asker',
      name: 'Asker',
      transport: 'streamable_http',
      url: server.url,
      timeoutMs: 10_000,
      protocolEra: 'legacy',
    }),
    { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes(), serverRequests: person },
  );
  await client.initialize();
});

afterEach(async () => {
  await client.close();
  await server.close();
});

function text(result: { content: Array<{ type: string; text?: string }> }): string | undefined {
  return result.content[0]?.text;
}

describe("a legacy HTTP server's request goes to the call whose stream carried it", () => {
  it('two calls in flight at once: each call’s own answerer gets its own question; the person is not asked', async () => {
    const rounds: InputRound[] = [];
    const asked: string[] = [];
    const callAs = (who: string) =>
      client.callTool(
        'ask',
        { who },
        {
          serverRequests: {
            elicit: (question) => {
              asked.push(`${who} was asked "${question.message}"`);
              return Promise.resolve({ action: 'accept', content: { name: `${who}'s agent` } });
            },
          },
          onInputRound: (round) => rounds.push(round),
        },
      );
    const both = Promise.all([callAs('A'), callAs('B')]);
    // Before the fix the person was asked (and nobody answered): say so rather than hang.
    const first = await Promise.race([both, person.next().then(() => 'the person was asked' as const)]);
    expect(first).not.toBe('the person was asked');
    const [a, b] = await both;
    expect(text(a)).toBe("hello A's agent");
    expect(text(b)).toBe("hello B's agent");
    expect(asked.sort()).toEqual(['A was asked "name for A?"', 'B was asked "name for B?"']);
    expect(person.received).toEqual([]);
    expect(rounds).toEqual([
      { round: 1, requests: [{ kind: 'elicitation', answeredBy: 'agent' }] },
      { round: 1, requests: [{ kind: 'elicitation', answeredBy: 'agent' }] },
    ]);
  });

  it('a request on the session’s GET stream is tied to no call: the person answers it', async () => {
    const call = client.callTool(
      'ask_aside',
      { who: 'C' },
      { serverRequests: { elicit: () => Promise.reject(new Error('the call’s answerer must not be asked')) } },
    );
    const asked = await person.next();
    if (asked.kind !== 'elicitation') throw new Error(`expected an elicitation, got ${asked.kind}`);
    expect(asked.serverRequest.message).toBe('name for C?');
    asked.answer({ action: 'accept', content: { name: 'the person' } });
    expect(text(await call)).toBe('hello the person');
  });
});
