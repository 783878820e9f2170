/**
 * A loopback double of the providers' HTTP APIs (not of their SDKs): Anthropic's
 * `POST /v1/messages`, OpenAI's `POST /v1/chat/completions` and `POST /v1/responses`, all
 * streamed as SSE exactly as the services stream them, plus `GET /v1/models`. The official SDKs talk to it over HTTP.
 *
 * What it answers is a script: a function of the request (by default, the turn chosen by how
 * many tool results the conversation already holds, so a resumed run gets the same answers as an
 * uninterrupted one). A turn streams text and tool calls, or fails with a status (401, 429 with
 * Retry-After, 500), or cuts its stream mid-way (the socket is destroyed), or holds mid-stream
 * — after its text, or before any one of its SSE events — until released (a test then stops or
 * kills the run while the model is "typing").
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export type ScriptedTurn =
  | {
      kind: 'reply';
      text?: string[];
      toolCalls?: ScriptedToolCall[];
      stop?: 'end_turn' | 'tool_use' | 'max_tokens';
      usage?: { input: number; output: number };
      /** Hold once the text is sent, before the tool calls and the stop. */
      hold?: boolean;
      /** Hold before the SSE event at this index (0: before any; see chunkCount) — a kill at any point of a stream. */
      holdAtChunk?: number;
    }
  | { kind: 'status'; status: number; retryAfter?: string; message?: string }
  | { kind: 'cut'; text: string[] }
  /** The service reports an error inside the stream (after some text), in its API's own form, and ends the stream. */
  | { kind: 'streamError'; text: string[]; message: string };

export type LoopbackApi = 'anthropic' | 'openai' | 'responses';

export interface LoopbackRequest {
  api: LoopbackApi;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the raw request body, read by tests
  body: any;
  headers: IncomingHttpHeaders;
  /** Tool results the conversation holds (the default script's turn index). */
  toolResults: number;
  /** The tool results' texts, in order (what the model "sees"). */
  resultTexts: string[];
}

/** The turn for the number of tool results the conversation holds; the last one repeats. */
export function turnsByToolResults(turns: ScriptedTurn[]): (request: LoopbackRequest) => ScriptedTurn {
  return (request) => turns[Math.min(request.toolResults, turns.length - 1)] as ScriptedTurn;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (data += chunk));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

interface Held {
  release(): void;
}

export class LoopbackProvider {
  readonly requests: LoopbackRequest[] = [];
  /** Streams whose client went away before the turn was complete (a Stop, a kill). */
  abandoned = 0;
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private readonly heldWaiters: Array<() => void> = [];
  private held: Held[] = [];

  constructor(public script: (request: LoopbackRequest) => ScriptedTurn) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  /** The base URL each SDK is given. */
  get anthropicBaseUrl(): string {
    return this.origin;
  }
  get openaiBaseUrl(): string {
    return `${this.origin}/v1`;
  }

  /** Resolves when a `hold` turn has streamed its text and is waiting. */
  whenHeld(): Promise<void> {
    if (this.held.length) return Promise.resolve();
    return new Promise((resolve) => this.heldWaiters.push(resolve));
  }

  /** Lets every held stream finish. */
  release(): void {
    const held = this.held;
    this.held = [];
    for (const h of held) h.release();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    const api: LoopbackApi =
      req.headers['anthropic-version'] !== undefined
        ? 'anthropic'
        : url.pathname === '/v1/responses'
          ? 'responses'
          : 'openai';
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      if (!this.authorized(req)) return this.fail(res, api, 401, undefined, 'invalid api key');
      const body =
        api === 'anthropic'
          ? {
              data: [
                { type: 'model', id: 'loopback-model', display_name: 'Loopback', created_at: '2026-01-01T00:00:00Z' },
              ],
              has_more: false,
              first_id: 'loopback-model',
              last_id: 'loopback-model',
            }
          : { object: 'list', data: [{ id: 'loopback-model', object: 'model', created: 0, owned_by: 'loopback' }] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    const raw = await readBody(req);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed request body
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return this.fail(res, api, 400, undefined, 'malformed JSON');
    }
    const request: LoopbackRequest = { api, body, headers: req.headers, ...resultsOf(api, body) };
    if (
      (api === 'anthropic' && url.pathname !== '/v1/messages') ||
      (api === 'openai' && url.pathname !== '/v1/chat/completions')
    ) {
      return this.fail(res, api, 404, undefined, `no route ${url.pathname}`);
    }
    this.requests.push(request);
    const turn = this.script(request);
    if (turn.kind === 'status')
      return this.fail(res, api, turn.status, turn.retryAfter, turn.message ?? `scripted ${turn.status}`);
    let complete = false;
    res.on('close', () => {
      if (!complete) this.abandoned += 1;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    // The turn's SSE events, built first, then written one by one (a hold pauses between two of them).
    const chunks: string[] = [];
    const sink = { write: (chunk: string) => void chunks.push(chunk) };
    const sse =
      api === 'anthropic'
        ? new AnthropicSse(sink, String(body.model))
        : api === 'responses'
          ? new ResponsesSse(sink, String(body.model))
          : new OpenAISse(sink, String(body.model));
    sse.start();
    for (const delta of turn.text ?? []) sse.text(delta);
    const afterText = chunks.length;
    if (turn.kind === 'reply') {
      const calls = turn.toolCalls ?? [];
      for (const call of calls) sse.toolCall(call);
      sse.finish(turn.stop ?? (calls.length ? 'tool_use' : 'end_turn'), turn.usage ?? { input: 10, output: 5 });
    }
    if (turn.kind === 'streamError') sse.error(turn.message);
    const holdAt = turn.kind === 'reply' ? (turn.holdAtChunk ?? (turn.hold ? afterText : undefined)) : undefined;
    for (let i = 0; i < chunks.length; i++) {
      if (i === holdAt) {
        await this.hold();
        if (res.destroyed) return;
      }
      res.write(chunks[i] as string);
    }
    if (turn.kind === 'cut') {
      // Cut by the service's side once what was sent has left (a client going away is not counted).
      complete = true;
      await new Promise<void>((flushed) => res.write('', () => flushed()));
      res.socket?.destroy();
      return;
    }
    complete = true;
    res.end();
  }

  /** How many SSE events a turn streams for this API (a test picks a hold point among them). */
  static chunkCount(api: LoopbackApi, turn: ScriptedTurn): number {
    let count = 0;
    const sink = { write: () => void (count += 1) };
    const sse =
      api === 'anthropic'
        ? new AnthropicSse(sink, 'm')
        : api === 'responses'
          ? new ResponsesSse(sink, 'm')
          : new OpenAISse(sink, 'm');
    sse.start();
    for (const delta of turn.kind === 'status' ? [] : (turn.text ?? [])) sse.text(delta);
    if (turn.kind === 'reply') {
      for (const call of turn.toolCalls ?? []) sse.toolCall(call);
      sse.finish(turn.stop ?? 'end_turn', { input: 1, output: 1 });
    }
    return count;
  }

  private hold(): Promise<void> {
    return new Promise<void>((release) => {
      this.held.push({ release });
      for (const waiter of this.heldWaiters.splice(0)) waiter();
    });
  }

  private authorized(req: IncomingMessage): boolean {
    const key = req.headers['x-api-key'] ?? req.headers.authorization;
    return typeof key === 'string' && !key.includes('wrong');
  }

  private fail(
    res: ServerResponse,
    api: LoopbackApi,
    status: number,
    retryAfter: string | undefined,
    message: string,
  ): void {
    const body =
      api === 'anthropic'
        ? { type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message } }
        : { error: { message, type: 'error', code: String(status) } };
    res
      .writeHead(status, { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) })
      .end(JSON.stringify(body));
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed request body
function resultsOf(api: LoopbackApi, body: any): { toolResults: number; resultTexts: string[] } {
  const texts: string[] = [];
  if (api === 'responses') {
    for (const item of Array.isArray(body?.input) ? body.input : [])
      if (item.type === 'function_call_output') texts.push(String(item.output));
    return { toolResults: texts.length, resultTexts: texts };
  }
  for (const message of Array.isArray(body?.messages) ? body.messages : []) {
    if (api === 'openai' && message.role === 'tool') texts.push(String(message.content));
    if (api === 'anthropic' && message.role === 'user' && Array.isArray(message.content)) {
      for (const block of message.content)
        if (block.type === 'tool_result')
          texts.push(typeof block.content === 'string' ? block.content : JSON.stringify(block.content));
    }
  }
  return { toolResults: texts.length, resultTexts: texts };
}

class AnthropicSse {
  private index = 0;
  private textOpen = false;
  constructor(
    private readonly res: { write(chunk: string): void },
    private readonly model: string,
  ) {}
  private send(event: string, data: unknown): void {
    this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  error(message: string): void {
    this.send('error', { type: 'error', error: { type: 'overloaded_error', message } });
  }
  start(): void {
    this.send('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_loopback',
        type: 'message',
        role: 'assistant',
        content: [],
        model: this.model,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
  }
  text(delta: string): void {
    if (!this.textOpen) {
      this.send('content_block_start', {
        type: 'content_block_start',
        index: this.index,
        content_block: { type: 'text', text: '' },
      });
      this.textOpen = true;
    }
    this.send('content_block_delta', {
      type: 'content_block_delta',
      index: this.index,
      delta: { type: 'text_delta', text: delta },
    });
  }
  private closeText(): void {
    if (!this.textOpen) return;
    this.send('content_block_stop', { type: 'content_block_stop', index: this.index++ });
    this.textOpen = false;
  }
  toolCall(call: ScriptedToolCall): void {
    this.closeText();
    const json = JSON.stringify(call.args);
    this.send('content_block_start', {
      type: 'content_block_start',
      index: this.index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    // The input arrives in fragments, as the service sends it.
    const half = Math.ceil(json.length / 2);
    for (const part of [json.slice(0, half), json.slice(half)])
      this.send('content_block_delta', {
        type: 'content_block_delta',
        index: this.index,
        delta: { type: 'input_json_delta', partial_json: part },
      });
    this.send('content_block_stop', { type: 'content_block_stop', index: this.index++ });
  }
  finish(stop: string, usage: { input: number; output: number }): void {
    this.closeText();
    this.send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { input_tokens: usage.input, output_tokens: usage.output },
    });
    this.send('message_stop', { type: 'message_stop' });
  }
}

class OpenAISse {
  private calls = 0;
  constructor(
    private readonly res: { write(chunk: string): void },
    private readonly model: string,
  ) {}
  private chunk(choices: unknown[], extra: Record<string, unknown> = {}): void {
    this.res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-loopback', object: 'chat.completion.chunk', created: 0, model: this.model, choices, ...extra })}\n\n`,
    );
  }
  start(): void {
    this.chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  }
  error(message: string): void {
    this.res.write(
      `data: ${JSON.stringify({ error: { message, type: 'server_error', code: null, param: null } })}\n\n`,
    );
  }
  text(delta: string): void {
    this.chunk([{ index: 0, delta: { content: delta }, finish_reason: null }]);
  }
  toolCall(call: ScriptedToolCall): void {
    const index = this.calls++;
    const json = JSON.stringify(call.args);
    const half = Math.ceil(json.length / 2);
    this.chunk([
      {
        index: 0,
        delta: {
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.name, arguments: json.slice(0, half) } },
          ],
        },
        finish_reason: null,
      },
    ]);
    this.chunk([
      { index: 0, delta: { tool_calls: [{ index, function: { arguments: json.slice(half) } }] }, finish_reason: null },
    ]);
  }
  finish(stop: string, usage: { input: number; output: number }): void {
    const reason = stop === 'tool_use' ? 'tool_calls' : stop === 'max_tokens' ? 'length' : 'stop';
    this.chunk([{ index: 0, delta: {}, finish_reason: reason }]);
    this.chunk([], {
      usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
    });
    this.res.write('data: [DONE]\n\n');
  }
}

/** OpenAI's Responses API stream: named events, each with a sequence number, ending with the whole response. */
class ResponsesSse {
  private seq = 0;
  private readonly output: unknown[] = [];
  private textItem: { id: string; text: string; index: number } | undefined;
  constructor(
    private readonly res: { write(chunk: string): void },
    private readonly model: string,
  ) {}
  private send(type: string, data: Record<string, unknown>): void {
    this.res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...data })}\n\n`);
  }
  private response(status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      id: 'resp_loopback',
      object: 'response',
      created_at: 0,
      model: this.model,
      status,
      output: this.output,
      error: null,
      incomplete_details: null,
      usage: null,
      ...extra,
    };
  }
  start(): void {
    this.send('response.created', { response: this.response('in_progress', { output: [] }) });
  }
  error(message: string): void {
    this.send('error', { code: 'server_error', message, param: null });
  }
  text(delta: string): void {
    if (!this.textItem) {
      this.textItem = { id: `msg_${this.output.length}`, text: '', index: this.output.length };
      this.output.push(null);
      this.send('response.output_item.added', {
        output_index: this.textItem.index,
        item: { id: this.textItem.id, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
      });
      this.send('response.content_part.added', {
        item_id: this.textItem.id,
        output_index: this.textItem.index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
    }
    this.textItem.text += delta;
    this.send('response.output_text.delta', {
      item_id: this.textItem.id,
      output_index: this.textItem.index,
      content_index: 0,
      delta,
      logprobs: [],
    });
  }
  private closeText(): void {
    const item = this.textItem;
    if (!item) return;
    this.textItem = undefined;
    const done = {
      id: item.id,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: item.text, annotations: [] }],
    };
    this.output[item.index] = done;
    this.send('response.output_text.done', {
      item_id: item.id,
      output_index: item.index,
      content_index: 0,
      text: item.text,
      logprobs: [],
    });
    this.send('response.output_item.done', { output_index: item.index, item: done });
  }
  toolCall(call: ScriptedToolCall): void {
    this.closeText();
    const index = this.output.length;
    const id = `fc_${index}`;
    const json = JSON.stringify(call.args);
    this.send('response.output_item.added', {
      output_index: index,
      item: { id, type: 'function_call', status: 'in_progress', call_id: call.id, name: call.name, arguments: '' },
    });
    // The arguments arrive in fragments, as the service sends them.
    const half = Math.ceil(json.length / 2);
    for (const part of [json.slice(0, half), json.slice(half)])
      this.send('response.function_call_arguments.delta', { item_id: id, output_index: index, delta: part });
    this.send('response.function_call_arguments.done', {
      item_id: id,
      output_index: index,
      name: call.name,
      arguments: json,
    });
    const done = { id, type: 'function_call', status: 'completed', call_id: call.id, name: call.name, arguments: json };
    this.output.push(done);
    this.send('response.output_item.done', { output_index: index, item: done });
  }
  finish(stop: string, usage: { input: number; output: number }): void {
    this.closeText();
    const totals = {
      usage: {
        input_tokens: usage.input,
        output_tokens: usage.output,
        total_tokens: usage.input + usage.output,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    };
    if (stop === 'max_tokens')
      this.send('response.incomplete', {
        response: this.response('incomplete', { ...totals, incomplete_details: { reason: 'max_output_tokens' } }),
      });
    else this.send('response.completed', { response: this.response('completed', totals) });
  }
}
