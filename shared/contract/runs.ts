/**
 * The contract's models and runs channels (README “Run your own model”), in their own group: the person's own
 * models (Settings → Models) and the agent runs (the Agent view). contract.ts spreads these into
 * its channels and events; their names are listed in channelNames.ts like every other.
 *
 * A model's API key is write-only: `models.save` takes it, nothing ever returns it (a view says
 * only whether one is set); main keeps it in the secret store.
 */
import { z } from 'zod';
import { AgentVisibilitySchema } from '../agents.js';
import { Empty, channel } from './common.js';
const ModelId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'use 1–64 letters, digits, _ or -');
const RunId = z.string().min(1).max(100);

/** `openai`: Chat Completions (and any OpenAI-compatible server); `openai_responses`: OpenAI's Responses API. */
const ModelKindSchema = z.enum(['anthropic', 'openai', 'openai_responses']);

const ModelViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: ModelKindSchema,
  baseUrl: z.string().optional(),
  model: z.string(),
  key: z.enum(['set', 'not_set']),
});
export type ModelView = z.infer<typeof ModelViewSchema>;

const MODEL_NAME_MAX = 100;
const MODEL_BASE_URL_MAX = 2000;
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/**
 * What is wrong with a model's base URL, as a sentence for the field (undefined: nothing; empty
 * is fine: the provider's public API). Shared by the form (said at the field as the person types)
 * and the contract (the same words when main refuses it). A URL typed without its scheme
 * (`localhost:11434`, Ollama's usual typo) gets the URL it probably meant.
 */
export function baseUrlProblem(raw: string, kind?: ModelView['kind']): string | undefined {
  const value = raw.trim();
  if (value === '') return undefined;
  if (value.length > MODEL_BASE_URL_MAX)
    return `must be at most ${MODEL_BASE_URL_MAX} characters (this one has ${value.length})`;
  if (/\s/.test(value)) return 'must not contain spaces';
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1];
  if (scheme === undefined) {
    const hostPart = value.split('/')[0] ?? '';
    const guess = `${LOOPBACK_HOST.test(hostPart) ? 'http' : 'https'}://${value}`;
    // Ollama, LM Studio and friends serve the OpenAI API under /v1.
    const meant = kind !== 'anthropic' && !value.includes('/') && LOOPBACK_HOST.test(hostPart) ? `${guess}/v1` : guess;
    return `must start with http:// or https:// — did you mean ${meant}?`;
  }
  if (!/^https?$/i.test(scheme)) return `must start with http:// or https:// (not ${scheme}://)`;
  try {
    const url = new URL(value);
    if (!url.hostname) return 'names no host (like http://127.0.0.1:11434/v1)';
  } catch {
    return 'is not a valid URL (like http://127.0.0.1:11434/v1)';
  }
  return undefined;
}

/** What is wrong with a model's name (undefined: nothing). */
export function modelNameProblem(raw: string): string | undefined {
  const value = raw.trim();
  if (value === '') return 'must not be empty';
  if (value.length > MODEL_NAME_MAX)
    return `must be at most ${MODEL_NAME_MAX} characters (this one has ${value.length})`;
  return undefined;
}

export const SaveModelRequestSchema = z
  .object({
    id: ModelId,
    name: z.string().superRefine((value, ctx) => {
      const problem = modelNameProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
    kind: ModelKindSchema,
    /** An OpenAI-compatible server (Ollama: http://127.0.0.1:11434/v1); empty = the provider's public API. */
    baseUrl: z.string().optional(),
    model: z.string().trim().min(1).max(200),
    /** Write-only. Absent: keep the stored key; empty: remove it; else: store it. */
    apiKey: z.string().max(4096).optional(),
    /**
     * True: change the model with this id (the person confirmed "Replace the model named …?").
     * Absent: a new model — refused when a model has this id or this name.
     */
    replace: z.boolean().optional(),
  })
  .strict()
  .superRefine((request, ctx) => {
    const problem = request.baseUrl === undefined ? undefined : baseUrlProblem(request.baseUrl, request.kind);
    if (problem) ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: problem });
  })
  .transform((request) => ({
    ...request,
    name: request.name.trim(),
    ...(request.baseUrl !== undefined ? { baseUrl: request.baseUrl.trim() } : {}),
  }));

const RunStatusSchema = z.enum([
  'running',
  'completed',
  'stopped',
  'failed',
  'interrupted',
  'needs_resolution',
  'limit_reached',
]);

const RunViewSchema = z.object({
  id: z.string(),
  /** The caller its calls are made as (approvals, History, Traces). */
  caller: z.string(),
  modelName: z.string(),
  status: RunStatusSchema,
  outcome: z.object({ code: z.string(), message: z.string(), callId: z.string().optional() }).optional(),
  /** The first thing the person asked. */
  title: z.string(),
  toolCalls: z.number(),
  maxToolCalls: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  tokenBudget: z.number(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type RunView = z.infer<typeof RunViewSchema>;

const ToolResultSchema = z.object({ text: z.string(), isError: z.boolean(), code: z.string().optional() });

const RunToolCallViewSchema = z.object({
  callId: z.string(),
  name: z.string(),
  toolName: z.string(),
  serverId: z.string(),
  args: z.record(z.string(), z.unknown()),
  status: z.enum(['pending', 'running', 'done']),
  result: ToolResultSchema.optional(),
});

const RunMessageViewSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), text: z.string() }),
  z.object({ role: z.literal('assistant'), text: z.string(), callIds: z.array(z.string()) }),
  z.object({ role: z.literal('tool_results'), callIds: z.array(z.string()) }),
]);

const RunDetailSchema = z.object({
  run: RunViewSchema,
  messages: z.array(RunMessageViewSchema),
  toolCalls: z.array(RunToolCallViewSchema),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;

const StartRunRequestSchema = z
  .object({
    modelId: ModelId,
    visibility: AgentVisibilitySchema,
    prompt: z.string().trim().min(1).max(100_000),
    maxToolCalls: z.number().int().min(1).max(1000).optional(),
    tokenBudget: z.number().int().min(1000).max(100_000_000).optional(),
  })
  .strict();

export const runChannels = {
  'models.list': channel(Empty, z.array(ModelViewSchema)),
  /** Adds or changes a model; its key (write-only) goes to the secret store. */
  'models.save': channel(SaveModelRequestSchema, ModelViewSchema),
  'models.remove': channel(z.object({ id: ModelId }).strict(), z.object({ removed: z.boolean() })),
  /** Connection test: the models the endpoint lists, or the coded failure (model_auth_failed, model_unreachable, …). */
  'models.test': channel(z.object({ id: ModelId }).strict(), z.object({ models: z.array(z.string()) })),
  'runs.list': channel(Empty, z.array(RunViewSchema)),
  'runs.get': channel(z.object({ id: RunId }).strict(), RunDetailSchema),
  /** Starts a run; it streams in with 'run.event'. */
  'runs.start': channel(StartRunRequestSchema, RunViewSchema),
  /** Cancels the model stream and the call in flight. */
  'runs.stop': channel(z.object({ id: RunId }).strict(), z.object({ stopped: z.boolean() })),
  /** Continues an interrupted, stopped, failed or unresolved run from its stored conversation. */
  'runs.resume': channel(z.object({ id: RunId }).strict(), RunViewSchema),
  'runs.delete': channel(z.object({ id: RunId }).strict(), z.object({ removed: z.boolean() })),
};

export const runEvents = {
  /** A run's live progress: streamed text, a tool call's card, its usage; the view follows it. */
  'run.event': z.discriminatedUnion('type', [
    z.object({ runId: z.string(), type: z.literal('text'), delta: z.string() }),
    z.object({ runId: z.string(), type: z.literal('turn_restarted'), reason: z.string() }),
    /** At a start or resume the run waits (bounded) until the servers it may use are ready or failed; `settled` ends the wait. */
    z.object({
      runId: z.string(),
      type: z.literal('servers'),
      state: z.enum(['waiting', 'settled']),
      serverIds: z.array(z.string()),
      timeoutMs: z.number().optional(),
      failed: z.array(z.object({ serverId: z.string(), reason: z.string() })).optional(),
    }),
    z.object({ runId: z.string(), type: z.literal('tool_call'), ...RunToolCallViewSchema.shape }),
    z.object({
      runId: z.string(),
      type: z.literal('usage'),
      inputTokens: z.number(),
      outputTokens: z.number(),
      toolCalls: z.number(),
    }),
  ]),
  /** A run was started, changed status, or was deleted (`run` absent): the list refreshes from it. */
  'runs.changed': z.object({ id: z.string(), run: RunViewSchema.optional() }),
};
