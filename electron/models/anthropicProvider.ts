/**
 * Anthropic's Messages API through the official SDK, streamed. The conversation becomes
 * Messages content blocks (tool calls as `tool_use`, results as `tool_result` in a user turn);
 * the SSE events become the normalised stream: text deltas as they arrive, a tool call once its
 * input JSON is complete, usage, then the stop. A stream that ends without `message_stop` is a
 * cut stream (`model_stream_cut`), not a finished turn.
 *
 * The key is revealed only here, into the SDK client; the SDK's own retries are off (the run
 * decides what to do with a coded error) and nothing is read from the environment.
 */
import Anthropic from '@anthropic-ai/sdk';
import { toAnthropicTools } from '../mcp/llmAdapter.js';
import type { SecretValue } from '../secrets/secretValue.js';
import { ModelError, endpointOf, toModelError } from './errors.js';
import type {
  ConversationMessage,
  ModelProvider,
  ModelStopReason,
  ModelStreamEvent,
  ModelTurnRequest,
} from './types.js';

const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
const DEFAULT_MAX_TOKENS = 4096;

type MessageParam = Anthropic.MessageParam;

function toAnthropicMessages(messages: readonly ConversationMessage[]): MessageParam[] {
  return messages.map((message): MessageParam => {
    switch (message.role) {
      case 'user':
        return { role: 'user', content: message.text };
      case 'assistant':
        return {
          role: 'assistant',
          content: [
            ...(message.text ? [{ type: 'text' as const, text: message.text }] : []),
            ...message.toolCalls.map((call) => ({
              type: 'tool_use' as const,
              id: call.id,
              name: call.name,
              input: call.args,
            })),
          ],
        };
      case 'tool_results':
        return {
          role: 'user',
          content: message.results.map((result) => ({
            type: 'tool_result' as const,
            tool_use_id: result.callId,
            content: result.text,
            is_error: result.isError,
          })),
        };
    }
  });
}

function stopReasonOf(reason: string | null | undefined): ModelStopReason {
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'end_turn';
  if (reason === 'tool_use') return 'tool_use';
  if (reason === 'max_tokens') return 'max_tokens';
  return 'other';
}

export class AnthropicProvider implements ModelProvider {
  readonly kind = 'anthropic' as const;
  private readonly client: Anthropic;

  constructor(
    readonly model: string,
    options: { apiKey: SecretValue | undefined; baseUrl?: string | undefined },
  ) {
    this.client = new Anthropic({
      apiKey: options.apiKey?.reveal() ?? '',
      baseURL: options.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL,
      maxRetries: 0,
    });
  }

  async *turn(request: ModelTurnRequest): AsyncIterable<ModelStreamEvent> {
    const { definitions } = toAnthropicTools([...request.tools]);
    let streaming = false;
    try {
      const stream = await this.client.messages.create(
        {
          model: this.model,
          max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
          ...(request.system ? { system: request.system } : {}),
          messages: toAnthropicMessages(request.messages),
          ...(definitions.length ? { tools: definitions as Anthropic.Tool[] } : {}),
          stream: true,
        },
        request.signal ? { signal: request.signal } : {},
      );
      streaming = true;
      // Tool-use blocks by index: their input arrives as JSON fragments.
      const toolBlocks = new Map<number, { id: string; name: string; json: string }>();
      let inputTokens = 0;
      let outputTokens = 0;
      let stop: ModelStopReason | undefined;
      let finished = false;
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start':
            inputTokens = event.message.usage.input_tokens;
            outputTokens = event.message.usage.output_tokens;
            break;
          case 'content_block_start':
            if (event.content_block.type === 'tool_use')
              toolBlocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta') yield { type: 'text', delta: event.delta.text };
            else if (event.delta.type === 'input_json_delta') {
              const block = toolBlocks.get(event.index);
              if (block) block.json += event.delta.partial_json;
            }
            break;
          case 'content_block_stop': {
            const block = toolBlocks.get(event.index);
            if (block) {
              toolBlocks.delete(event.index);
              yield { type: 'tool_call', call: { id: block.id, name: block.name, args: parseArgs(block.json) } };
            }
            break;
          }
          case 'message_delta':
            stop = stopReasonOf(event.delta.stop_reason);
            if (event.usage.output_tokens != null) outputTokens = event.usage.output_tokens;
            if (event.usage.input_tokens != null) inputTokens = event.usage.input_tokens;
            break;
          case 'message_stop':
            finished = true;
            break;
        }
      }
      if (!finished || stop === undefined)
        throw new ModelError('model_stream_cut', 'The model stream ended before the model finished its turn.');
      yield { type: 'usage', inputTokens, outputTokens };
      yield { type: 'stop', reason: stop };
    } catch (error) {
      throw toModelError(error, streaming, request.signal, endpointOf('POST', this.client.baseURL, 'v1/messages'));
    }
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    try {
      const ids: string[] = [];
      for await (const model of this.client.models.list({}, signal ? { signal } : {})) ids.push(model.id);
      return ids;
    } catch (error) {
      throw toModelError(error, false, signal, endpointOf('GET', this.client.baseURL, 'v1/models'));
    }
  }
}

/** A tool call's JSON input; an empty or broken one becomes `{}` plus nothing (the pipeline validates arguments). */
export function parseArgs(json: string): Record<string, unknown> {
  if (!json.trim()) return {};
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { _unparsed: json.slice(0, 10_000) };
  }
}
