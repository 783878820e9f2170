/**
 * A durable agent run as main sees it: the model it talks to, the tools it may see (the gateway
 * agents' visibility model, shared/agents.ts), its limits and counters, its status, and the tool
 * calls the model made with what the model was told about each.
 */
import type { AgentVisibility } from '../../shared/agents.js';
import type { ModelConfig } from '../models/providerFactory.js';
import type { ModelToolCall } from '../models/types.js';

export type RunStatus =
  'running' | 'completed' | 'stopped' | 'failed' | 'interrupted' | 'needs_resolution' | 'limit_reached';

/** Why a run is not running (absent while it runs and when the model simply finished). */
export interface RunOutcome {
  code: string;
  message: string;
  /** For `needs_resolution`: the call to resolve in History (session = the run id). */
  callId?: string;
}

export interface RunLimits {
  /** Tool calls the run may make in all. */
  maxToolCalls: number;
  /** Input plus output tokens the run may spend in all. */
  tokenBudget: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = { maxToolCalls: 25, tokenBudget: 200_000 };

export interface RunRecord {
  id: string;
  model: ModelConfig;
  visibility: AgentVisibility;
  systemPrompt: string | undefined;
  status: RunStatus;
  outcome: RunOutcome | undefined;
  limits: RunLimits;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  createdAt: number;
  updatedAt: number;
}

/** What the model was told about one call. `code` is the pipeline's error code when it failed. */
export interface StoredToolResult {
  text: string;
  isError: boolean;
  code?: string;
}

export interface RunToolCallRecord {
  call: ModelToolCall;
  messageSeq: number;
  toolName: string;
  serverId: string;
  status: 'pending' | 'running' | 'done';
  result: StoredToolResult | undefined;
  traceId: string | undefined;
}
