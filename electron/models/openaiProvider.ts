/**
 * OpenAI Chat Completions through the official SDK, streamed — and, with a base URL, any
 * OpenAI-compatible endpoint (Ollama, LM Studio, llama.cpp's server, vLLM), which need no key.
 * The conversation becomes chat messages (tool calls on the assistant message, each result a
 * `tool` message); the chunks become the normalised stream: text deltas as they arrive, each tool
 * call once the turn's chunks are complete (its arguments arrive in fragments by index), usage
 * (asked for with `include_usage`), then the stop. No `finish_reason` before the end is a cut stream.
 *
 * The key is revealed only here, into the SDK client; SDK retries are off; nothing is read from
 * the environment.
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
  ModelTurnRequest,
} from './types.js';

type ChatMessage = OpenAI.ChatCompletionMessageParam;

function toOpenAIMessages(system: string | undefined, messages: readonly ConversationMessage[]): ChatMessage[] {
  const out: ChatMessage[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.text });
    else if (message.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: message.text || null,
        ...(message.toolCalls.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: JSON.stringify(call.args) },
              })),
            }
          : {}),
      });
    } else {
      // The API has no error flag on a tool message: a failure says so in its text.
      for (const result of message.results)
        out.push({
          role: 'tool',
          tool_call_id: result.callId,
          content: result.isError ? `Error: ${result.text}` : result.text,
        });
    }
  }
  return out;
}

function stopReasonOf(reason: string): ModelStopReason {
  if (reason === 'stop') return 'end_turn';
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool_use';
  if (reason === 'length') return 'max_tokens';
  return 'other';
}

export class OpenAIProvider implements ModelProvider {
  readonly kind = 'openai' as const;
  private readonly client: OpenAI;

  constructor(
    readonly model: string,
    options: { apiKey: SecretValue | undefined; baseUrl?: string | undefined },
  ) {
    this.client = openAIClient(options);
  }

  async *turn(request: ModelTurnRequest): AsyncIterable<ModelStreamEvent> {
    const { definitions } = toOpenAITools([...request.tools]);
    let streaming = false;
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.model,
          messages: toOpenAIMessages(request.system, request.messages),
          ...(definitions.length ? { tools: definitions } : {}),
          ...(request.maxTokens ? { max_completion_tokens: request.maxTokens } : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        request.signal ? { signal: request.signal } : {},
      );
      streaming = true;
      const calls = new Map<number, { id: string; name: string; json: string }>();
      let stop: ModelStopReason | undefined;
      let usage: { inputTokens: number; outputTokens: number } | undefined;
      for await (const chunk of stream) {
        if (chunk.usage)
          usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.delta.content) yield { type: 'text', delta: choice.delta.content };
        for (const fragment of choice.delta.tool_calls ?? []) {
          const call = calls.get(fragment.index) ?? { id: '', name: '', json: '' };
          if (fragment.id) call.id = fragment.id;
          if (fragment.function?.name) call.name += fragment.function.name;
          if (fragment.function?.arguments) call.json += fragment.function.arguments;
          calls.set(fragment.index, call);
        }
        if (choice.finish_reason) stop = stopReasonOf(choice.finish_reason);
      }
      if (stop === undefined)
        throw new ModelError('model_stream_cut', 'The model stream ended before the model finished its turn.');
      for (const call of [...calls].sort(([a], [b]) => a - b).map(([, c]) => c)) {
        // Some compatible servers leave the id out: a fresh one keeps ids unique within the run (a
        // reused id would replay another call's checkpoint); the run stores it with the turn.
        yield {
          type: 'tool_call',
          call: { id: call.id || `call_${randomUUID()}`, name: call.name, args: parseArgs(call.json) },
        };
      }
      if (usage) yield { type: 'usage', ...usage };
      yield { type: 'stop', reason: stop };
    } catch (error) {
      throw toModelError(error, streaming, request.signal, endpointOf('POST', this.client.baseURL, 'chat/completions'));
    }
  }

  listModels(signal?: AbortSignal): Promise<string[]> {
    return listOpenAIModels(this.client, signal);
  }
}
