/**
 * The providers (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses) through the official
 * SDKs against the loopback double of each HTTP API: the
 * normalised stream (text deltas, tool calls with the model's ids, usage, stop), the adapter's
 * tool definitions and the conversation on the wire, and every failure as a coded ModelError.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredTool } from '../../electron/mcp/registry.js';
import type { ModelError } from '../../electron/models/errors.js';
import type { ModelConfig } from '../../electron/models/providerFactory.js';
import { createProvider, modelKeyStorageKey } from '../../electron/models/providerFactory.js';
import type { ConversationMessage, ModelProvider, ModelStreamEvent } from '../../electron/models/types.js';
import { SecretValue } from '../../electron/secrets/secretValue.js';
import type { ScriptedTurn } from '../doubles/providers/loopbackProvider.js';
import { LoopbackProvider } from '../doubles/providers/loopbackProvider.js';

const KEY = 'sk-loopback-secret-1234';
const tools: RegisteredTool[] = [
  {
    name: 'fs.write',
    serverId: 'fx',
    priority: 0,
    tool: {
      name: 'fs.write',
      description: 'Writes a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];
const conversation: ConversationMessage[] = [
  { role: 'user', text: 'write it' },
  { role: 'assistant', text: 'Writing.', toolCalls: [{ id: 'toolu_1', name: 'fs_write', args: { path: 'a.txt' } }] },
  {
    role: 'tool_results',
    results: [{ callId: 'toolu_1', name: 'fs_write', text: 'Permission denied by the person', isError: true }],
  },
];

async function collect(
  provider: ModelProvider,
  signal?: AbortSignal,
): Promise<{ events: ModelStreamEvent[]; error?: ModelError }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const event of provider.turn({
      system: 'be brief',
      messages: conversation,
      tools,
      ...(signal ? { signal } : {}),
    }))
      events.push(event);
    return { events };
  } catch (error) {
    return { events, error: error as ModelError };
  }
}

describe.each(['anthropic', 'openai', 'openai_responses'] as const)('%s provider over the official SDK', (kind) => {
  let loopback: LoopbackProvider;
  let turn: ScriptedTurn = { kind: 'reply', text: ['Hel', 'lo'] };
  const provider = (key = KEY): Promise<ModelProvider> => {
    const config: ModelConfig = {
      id: 'm1',
      name: 'Loopback',
      kind,
      model: 'loopback-model',
      baseUrl: kind === 'anthropic' ? loopback.anthropicBaseUrl : loopback.openaiBaseUrl,
    };
    const store = new Map([[modelKeyStorageKey('m1'), new SecretValue(key)]]);
    return createProvider(config, { get: (k) => Promise.resolve(store.get(k)) });
  };

  beforeAll(async () => {
    loopback = await new LoopbackProvider(() => turn).start();
  });
  afterAll(() => loopback.close());

  it('streams text deltas, then the tool calls with the model ids and parsed arguments, usage and the stop', async () => {
    turn = {
      kind: 'reply',
      text: ['I will ', 'write.'],
      toolCalls: [{ id: 'call_abc', name: 'fs_write', args: { path: 'b.txt', text: 'x' } }],
      usage: { input: 42, output: 7 },
    };
    const { events, error } = await collect(await provider());
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'text', delta: 'I will ' },
      { type: 'text', delta: 'write.' },
      { type: 'tool_call', call: { id: 'call_abc', name: 'fs_write', args: { path: 'b.txt', text: 'x' } } },
      { type: 'usage', inputTokens: 42, outputTokens: 7 },
      { type: 'stop', reason: 'tool_use' },
    ]);
  });

  it('sends the adapter tool definitions, the key in its header, and the conversation with the tool error', async () => {
    turn = { kind: 'reply', text: ['ok'] };
    const before = loopback.requests.length;
    const { events } = await collect(await provider());
    expect(events.at(-1)).toEqual({ type: 'stop', reason: 'end_turn' });
    const request = loopback.requests[before];
    expect(request?.body.stream).toBe(true);
    expect(request?.resultTexts).toEqual([
      kind !== 'anthropic' ? 'Error: Permission denied by the person' : 'Permission denied by the person',
    ]);
    if (kind === 'anthropic') {
      // This SDK version sends the key as a bearer token (older ones as x-api-key).
      expect(request?.headers['x-api-key'] ?? request?.headers.authorization).toMatch(new RegExp(`^(Bearer )?${KEY}$`));
      expect(request?.body.tools).toEqual([
        { name: 'fs_write', description: 'Writes a file.', input_schema: tools[0]?.tool.inputSchema },
      ]);
      expect(request?.body.messages[2].content[0]).toMatchObject({
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        is_error: true,
      });
    } else if (kind === 'openai_responses') {
      // The Responses API: POST /v1/responses, instructions for the system prompt, input items, flat function tools.
      expect(request?.api).toBe('responses');
      expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request?.body.tools).toEqual([
        {
          type: 'function',
          name: 'fs_write',
          description: 'Writes a file.',
          parameters: tools[0]?.tool.inputSchema,
          strict: false,
        },
      ]);
      expect(request?.body.instructions).toBe('be brief');
      expect(request?.body.store).toBe(false);
      expect(request?.body.input).toEqual([
        { role: 'user', content: 'write it' },
        { role: 'assistant', content: 'Writing.' },
        { type: 'function_call', call_id: 'toolu_1', name: 'fs_write', arguments: '{"path":"a.txt"}' },
        { type: 'function_call_output', call_id: 'toolu_1', output: 'Error: Permission denied by the person' },
      ]);
    } else {
      expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request?.body.tools[0].function.name).toBe('fs_write');
      expect(request?.body.messages[0]).toEqual({ role: 'system', content: 'be brief' });
      expect(request?.body.messages[2].tool_calls[0]).toMatchObject({ id: 'toolu_1', function: { name: 'fs_write' } });
    }
  });

  it('several tool calls in one turn come out in the order the model made them, each with its own id', async () => {
    turn = {
      kind: 'reply',
      toolCalls: [
        { id: 'call_p1', name: 'fs_write', args: { path: '1' } },
        { id: 'call_p2', name: 'fs_write', args: { path: '2' } },
        { id: 'call_p3', name: 'fs_write', args: { path: '3' } },
      ],
    };
    const { events, error } = await collect(await provider());
    expect(error).toBeUndefined();
    expect(
      events.filter((e) => e.type === 'tool_call').map((e) => (e.type === 'tool_call' ? [e.call.id, e.call.args] : [])),
    ).toEqual([
      ['call_p1', { path: '1' }],
      ['call_p2', { path: '2' }],
      ['call_p3', { path: '3' }],
    ]);
    expect(events.at(-1)).toEqual({ type: 'stop', reason: 'tool_use' });
  });

  it('a turn that hit the output limit stops with max_tokens', async () => {
    turn = { kind: 'reply', text: ['cut sho'], stop: 'max_tokens' };
    const { events } = await collect(await provider());
    expect(events.at(-1)).toEqual({ type: 'stop', reason: 'max_tokens' });
  });

  it('a 401 is model_auth_failed, without the key in the message', async () => {
    turn = { kind: 'status', status: 401, message: 'bad key' };
    const { error } = await collect(await provider());
    expect(error?.code).toBe('model_auth_failed');
    expect(error?.message).not.toContain(KEY);
  });

  it('a 429 is model_rate_limited with the Retry-After in milliseconds', async () => {
    turn = { kind: 'status', status: 429, retryAfter: '7' };
    const { error } = await collect(await provider());
    expect(error?.code).toBe('model_rate_limited');
    expect(error?.retryAfterMs).toBe(7000);
  });

  it('a 500 is model_server_error', async () => {
    turn = { kind: 'status', status: 500 };
    const { error } = await collect(await provider());
    expect(error?.code).toBe('model_server_error');
  });

  it('a stream cut mid-turn is model_stream_cut, after the text that arrived', async () => {
    turn = { kind: 'cut', text: ['partial'] };
    const { events, error } = await collect(await provider());
    expect(error?.code).toBe('model_stream_cut');
    expect(events.some((e) => e.type === 'stop')).toBe(false);
  });

  it('an error the provider reports inside the stream is model_server_error with its own words, not a cut stream', async () => {
    turn = { kind: 'streamError', text: ['partial'], message: 'Overloaded, try again' };
    const { events, error } = await collect(await provider());
    expect(error?.code).toBe('model_server_error');
    expect(error?.message).toContain('Overloaded, try again');
    expect(events.some((e) => e.type === 'stop')).toBe(false);
  });

  it('an abort cancels the stream: model_cancelled, and the service sees the connection go', async () => {
    turn = { kind: 'reply', text: ['thinking'], hold: true };
    const abandoned = loopback.abandoned;
    const controller = new AbortController();
    const done = collect(await provider(), controller.signal);
    await loopback.whenHeld();
    controller.abort();
    const { error } = await done;
    expect(error?.code).toBe('model_cancelled');
    await expect.poll(() => loopback.abandoned).toBe(abandoned + 1);
    loopback.release();
  });

  it('lists the models (the connection test); a wrong key is model_auth_failed', async () => {
    await expect((await provider()).listModels()).resolves.toEqual(['loopback-model']);
    await expect((await provider('wrong-key')).listModels()).rejects.toMatchObject({ code: 'model_auth_failed' });
  });
});
