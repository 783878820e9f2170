/**
 * OpenAI's Responses API through the official SDK (`responses.create`, streamed) — the provider
 * shape for OpenAI models that are used through Responses rather than Chat Completions, and for
 * compatible servers that implement `/v1/responses`.
 *
 * The conversation becomes input items (a user or assistant text as a message, each tool call a
 * `function_call` item with the model's `call_id`, each result a `function_call_output`); the
 * events become the normalised stream: text deltas as they arrive, each function call once its
 * output item is done (arguments complete), usage from the final response, then the stop. The
 * API has no "tool use" stop reason: a completed response that made function calls is one. A
 * stream without `response.completed` / `response.incomplete` is a cut stream; `response.failed`
 * is the provider's failure.
 *
 * Nothing is stored at OpenAI (`store: false`): the run's store is the conversation. The key is
 * revealed only here, into the SDK client; SDK retries are off; nothing is read from the environment.
 */
import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import { toOpenAITools } from '../mcp/llmAdapter.js';
import type { SecretValue } from '../secrets/secretValue.js';
import { parseArgs } from './anthropicProvider.js';
import { ModelError, endpointOf, toModelError } from './errors.js';
import { listOpenAIModels, openAIClient } from './openaiClient.js';
import type {
  ConversationMessage,
  ModelProvider,
  ModelStopReason,
  ModelStreamEvent,
  ModelToolCall,
  ModelTurnRequest,
} from './types.js';

type InputItem = OpenAI.Responses.ResponseInputItem;

function toResponsesInput(messages: readonly ConversationMessage[]): InputItem[] {
  const out: InputItem[] = [];
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.text });
    else if (message.role === 'assistant') {
      if (message.text) out.push({ role: 'assistant', content: message.text });
      for (const call of message.toolCalls)
        out.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: JSON.stringify(call.args) });
    } else {
      // The output item has no error flag: a failure says so in its text (as with Chat Completions).
      for (const result of message.results)
        out.push({
          type: 'function_call_output',
          call_id: result.callId,
          output: result.isError ? `Error: ${result.text}` : result.text,
        });
    }
  }
  return out;
}

export class OpenAIResponsesProvider implements ModelProvider {
  readonly kind = 'openai_responses' as const;
  private readonly client: OpenAI;

  constructor(
    readonly model: string,
    options: { apiKey: SecretValue | undefined; baseUrl?: string | undefined },
  ) {
    this.client = openAIClient(options);
  }

  async *turn(request: ModelTurnRequest): AsyncIterable<ModelStreamEvent> {
    const definitions = toOpenAITools([...request.tools]).definitions.map((d): OpenAI.Responses.FunctionTool => ({
      type: 'function',
      name: d.function.name,
      description: d.function.description ?? null,
      parameters: d.function.parameters as Record<string, unknown>,
      strict: false,
    }));
    let streaming = false;
    try {
      const stream = await this.client.responses.create(
        {
          model: this.model,
          input: toResponsesInput(request.messages),
          ...(request.system ? { instructions: request.system } : {}),
          ...(definitions.length ? { tools: definitions } : {}),
          ...(request.maxTokens ? { max_output_tokens: request.maxTokens } : {}),
          store: false,
          stream: true,
        },
        request.signal ? { signal: request.signal } : {},
      );
      streaming = true;
      const calls: ModelToolCall[] = [];
      let stop: ModelStopReason | undefined;
      let usage: { inputTokens: number; outputTokens: number } | undefined;
      for await (const event of stream) {
        switch (event.type) {
          case 'response.output_text.delta':
            yield { type: 'text', delta: event.delta };
            break;
          case 'response.output_item.done':
            if (event.item.type === 'function_call') {
              // A reused or missing id would replay another call's checkpoint: a fresh one keeps ids unique.
              calls.push({
                id: event.item.call_id || `call_${randomUUID()}`,
                name: event.item.name,
                args: parseArgs(event.item.arguments),
              });
            }
            break;
          case 'response.completed':
          case 'response.incomplete':
            if (event.response.usage)
              usage = {
                inputTokens: event.response.usage.input_tokens,
                outputTokens: event.response.usage.output_tokens,
              };
            stop =
              event.type === 'response.incomplete'
                ? event.response.incomplete_details?.reason === 'max_output_tokens'
                  ? 'max_tokens'
                  : 'other'
                : calls.length
                  ? 'tool_use'
                  : 'end_turn';
            break;
          case 'response.failed':
            throw new ModelError(
              'model_server_error',
              `The provider failed: ${event.response.error?.message.slice(0, 300) ?? 'no details'}`,
            );
          default:
            break;
        }
      }
      if (stop === undefined)
        throw new ModelError('model_stream_cut', 'The model stream ended before the model finished its turn.');
      for (const call of calls) yield { type: 'tool_call', call };
      if (usage) yield { type: 'usage', ...usage };
      yield { type: 'stop', reason: stop };
    } catch (error) {
      throw toModelError(error, streaming, request.signal, endpointOf('POST', this.client.baseURL, 'responses'));
    }
  }

  listModels(signal?: AbortSignal): Promise<string[]> {
    return listOpenAIModels(this.client, signal);
  }
}
