/**
 * The one interface every model provider implements (Anthropic Messages, OpenAI Chat Completions
 * and any OpenAI-compatible endpoint, OpenAI Responses): a conversation in a provider-neutral shape goes in, a
 * normalised stream comes out — text deltas, complete tool calls carrying the model's own
 * tool-call id (the run uses it as the pipeline's callId), usage, and one stop reason. Failures
 * are `ModelError`s with a code (see errors.ts), never a provider's raw error.
 *
 * The conversation shape is what runs/ stores, so a run can be rebuilt from the store and sent to
 * either provider.
 */
import type { RegisteredTool } from '../mcp/registry.js';

/** `openai` is Chat Completions (and every OpenAI-compatible server); `openai_responses` is OpenAI's Responses API. */
export type ModelProviderKind = 'anthropic' | 'openai' | 'openai_responses';

/** A tool call as the model made it; `id` is the model's tool-call id. */
export interface ModelToolCall {
  id: string;
  /** The model-facing name (the adapter's sanitized name, see mcp/llmAdapter.ts). */
  name: string;
  args: Record<string, unknown>;
}

/** A tool's result as the model is told it: its text, and whether it failed (a denial is one). */
export interface ModelToolResult {
  callId: string;
  name: string;
  text: string;
  isError: boolean;
}

export type ConversationMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[] }
  | { role: 'tool_results'; results: ModelToolResult[] };

export type ModelStopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'other';

export type ModelStreamEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool_call'; call: ModelToolCall }
  | { type: 'usage'; inputTokens: number; outputTokens: number }
  | { type: 'stop'; reason: ModelStopReason };

export interface ModelTurnRequest {
  system?: string;
  messages: readonly ConversationMessage[];
  /** The tools the model may call (converted by the provider with mcp/llmAdapter.ts). */
  tools: readonly RegisteredTool[];
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface ModelProvider {
  readonly kind: ModelProviderKind;
  readonly model: string;
  /** One model turn, streamed. Ends with exactly one `stop` event, or throws a ModelError. */
  turn(request: ModelTurnRequest): AsyncIterable<ModelStreamEvent>;
  /** The models the endpoint lists (a connection test). */
  listModels(signal?: AbortSignal): Promise<string[]>;
}
