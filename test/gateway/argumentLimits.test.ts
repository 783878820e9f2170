/**
 * Arguments the upstream cannot take are refused before they are sent (issue 19, attack
 * finding 4): an SDK stdio server reads at most 10 MiB per message and exits on a larger one,
 * failing every call in flight on it. A real stdio server (the fixture, SDK v1) behind the real
 * gateway: a call whose arguments are over its limit — from a 2025 agent, a 2026-07-28 agent and
 * the GUI — is answered request_too_large with the limit named, while a call in flight on the same
 * server completes, the server keeps its one process, and the next call works.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { META_ERROR } from '../../electron/gateway/agentResults.js';
import { MAX_STDIO_TOOL_ARGS_BYTES, argumentLimitOf } from '../../electron/harness/argumentSize.js';
import { MAX_TOOL_ARGS_BYTES, formatBytes } from '../../shared/limits.js';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, connectAgent, connectModernAgent, startGatewayApp } from './support.js';

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean; _meta?: Record<string, unknown> };
const textOf = (result: Result): string => result.content.map((c) => c.text ?? '').join('');
/** Just over what a stdio server is sent: 10.5 MiB of text (under the gateway's 16 MiB body limit and the contract's 12 MiB). */
const OVERSIZED = 'x'.repeat(10.5 * 1024 * 1024);

describe('arguments a stdio server cannot take', () => {
  const scratch = scratchDir('mh-arg-limits-');
  const events = join(scratch.dir, 'events.jsonl');
  let app: GatewayApp;
  let legacy: Client;
  let modern: ModernClient;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'fx', { FIXTURE_TOOLS: 'echo,progress', FIXTURE_EVENTS: events }, ['echo', 'progress']);
    const { token } = await app.createAgent('Big sender');
    legacy = await connectAgent(app.url, token);
    modern = await connectModernAgent(app.url, token);
  }, 60_000);
  afterAll(async () => {
    await legacy?.close();
    await modern?.close();
    await app?.close();
    scratch.cleanup();
  });

  const initializes = (): number =>
    readFileSync(events, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"event":"initialize"')).length;

  it.each([
    ['a 2025 agent', () => legacy.callTool({ name: 'fx__echo', arguments: { text: OVERSIZED } }) as Promise<Result>],
    [
      'a 2026-07-28 agent',
      () => modern.callTool({ name: 'fx__echo', arguments: { text: OVERSIZED } }) as Promise<Result>,
    ],
  ])(
    '%s gets request_too_large with the limit named; a call in flight on that server completes',
    async (_who, oversized) => {
      expect(initializes()).toBe(1);
      const inFlight = legacy.callTool({
        name: 'fx__progress',
        arguments: { steps: 3, everyMs: 50 },
      }) as Promise<Result>;
      const refused = await oversized();
      expect(refused.isError).toBe(true);
      expect(refused._meta?.[META_ERROR]).toBe('request_too_large');
      expect(textOf(refused)).toContain(`at most ${formatBytes(MAX_STDIO_TOOL_ARGS_BYTES)}`);
      expect(textOf(refused)).toMatch(/Nothing was sent/);
      const done = await inFlight;
      expect(done.isError).toBeFalsy();
      expect(textOf(done)).toBe('done after 3 steps');
      const next = (await modern.callTool({ name: 'fx__echo', arguments: { text: 'still here' } })) as Result;
      expect(textOf(next)).toBe('still here');
      // The same process served it all: the server never restarted.
      expect(initializes()).toBe(1);
    },
  );

  it('the GUI gets request_too_large with the limit and the size, and the server keeps running', async () => {
    const reply = await app.core.dispatch('tools.call', {
      name: 'echo',
      serverId: 'fx',
      args: { text: OVERSIZED },
      callId: 'gui-oversized-1',
    });
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.error.code).toBe('request_too_large');
    expect(reply.error.details).toMatchObject({
      limitBytes: MAX_STDIO_TOOL_ARGS_BYTES,
      sizeBytes: expect.any(Number),
      serverId: 'fx',
    });
    const status = await app.call<Array<{ config: { id: string }; status: { state: string } }>>('servers.list');
    expect(status.find((s) => s.config.id === 'fx')?.status.state).toBe('ready');
    expect(initializes()).toBe(1);
  });

  it('an HTTP server and a local tool are held to the contract’s 12 MiB, a stdio server to 10 MiB less room for the envelope', () => {
    expect(
      argumentLimitOf(
        HttpServerConfigSchema.parse({
          id: 'h',
          name: 'H',
          transport: 'streamable_http',
          url: 'http://example.com/mcp',
        }),
      ).limitBytes,
    ).toBe(MAX_TOOL_ARGS_BYTES);
    expect(argumentLimitOf(undefined).limitBytes).toBe(MAX_TOOL_ARGS_BYTES);
    expect(MAX_STDIO_TOOL_ARGS_BYTES).toBeLessThan(10 * 1024 * 1024);
  });
});
