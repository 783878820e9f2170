/** The contract's `tools.*` part: the tool list and its name conflicts, and running a tool through the pipeline. */
import { z } from 'zod';
import { MAX_TOOL_ARGS_BYTES, formatBytes, jsonByteLength } from '../limits.js';
import { ServerIdSchema } from '../serverConfig.js';
import type { DomainChannels, DomainEvents } from './common.js';
import { ContentBlockSchema, Empty, JsonObject, channel } from './common.js';
import { ToolAppSchema } from './toolApp.js';
import { CallIdSchema } from './callKey.js';
import { PoisonFlagSchema, ToolPinStateSchema } from './toolPins.js';

/** An MCP icon the page may show: main passes only inline images (`data:`), the page loads nothing from the network. */
const ToolIconSchema = z.object({
  src: z.string(),
  mimeType: z.string().optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.enum(['light', 'dark']).optional(),
});
export type ToolIcon = z.infer<typeof ToolIconSchema>;

export const ToolViewSchema = z.object({
  name: z.string(),
  source: z.enum(['local', 'mcp']),
  serverId: z.string(),
  title: z.string().optional(),
  /** The tool's icons (MCP `icons`), inline images only. */
  icons: z.array(ToolIconSchema).optional(),
  description: z.string().optional(),
  inputSchema: JsonObject,
  outputSchema: JsonObject.optional(),
  annotations: JsonObject.optional(),
  /** The server a call by this name reaches instead (a name conflict), when not this one. */
  shadowedBy: z.string().optional(),
  /** True while this server's tool list comes from the schema cache and the server is not ready yet. */
  cached: z.boolean().optional(),
  /** The tool's MCP App (`_meta.ui`): the `ui://` resource rendered beside its result, and who may call it. */
  app: ToolAppSchema.optional(),
  /** The tool's pin (issue 31): `changed` (with the diff) when its definition is not the one approved. */
  pin: ToolPinStateSchema.optional(),
  /** Poisoning flags of its definition: warnings naming the passage. */
  flags: z.array(PoisonFlagSchema).optional(),
});
export type ToolView = z.infer<typeof ToolViewSchema>;

export const ConflictViewSchema = z.object({
  name: z.string(),
  winner: z.string(),
  servers: z.array(z.object({ serverId: z.string(), priority: z.number() })),
});
export type ConflictView = z.infer<typeof ConflictViewSchema>;

/** A tool result as the GUI renders it (text, image, resource link, structured content, isError). */
export const ToolResultViewSchema = z.object({
  content: z.array(ContentBlockSchema),
  structuredContent: JsonObject.optional(),
  isError: z.boolean(),
});
export type ToolResultView = z.infer<typeof ToolResultViewSchema>;

export const CallOutcomeSchema = z.object({
  callId: z.string(),
  traceId: z.string(),
  sessionId: z.string(),
  toolName: z.string(),
  serverId: z.string(),
  /** True when a completed checkpoint answered and nothing ran. */
  replayed: z.boolean(),
  attempts: z.number().int().nonnegative(),
  result: ToolResultViewSchema,
  warnings: z.array(z.string()),
});
export type CallOutcome = z.infer<typeof CallOutcomeSchema>;

/**
 * A tool's arguments: at most MAX_TOOL_ARGS_BYTES as JSON (shared/limits.ts), so a call fits in
 * one bridge frame. The issue carries `params.tooLarge` so the renderer can say so by code.
 */
const ToolArgs = JsonObject.superRefine((args, ctx) => {
  const sizeBytes = jsonByteLength(args);
  if (sizeBytes > MAX_TOOL_ARGS_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `The arguments are ${formatBytes(sizeBytes)} as JSON; the limit is ${formatBytes(MAX_TOOL_ARGS_BYTES)}.`,
      params: { tooLarge: { limitBytes: MAX_TOOL_ARGS_BYTES, sizeBytes } },
    });
  }
});

export const ToolCallRequestSchema = z
  .object({
    name: z.string().min(1).max(200),
    /** `local` or a server id: which tool of that name to run. */
    serverId: ServerIdSchema,
    args: ToolArgs,
    /** A fresh id per call, made by the GUI; reusing one replays (or is refused). */
    callId: CallIdSchema,
    timeoutMs: z.number().int().min(100).max(3_600_000).optional(),
  })
  .strict();

export const toolChannels = {
  'tools.list': channel(Empty, z.object({ tools: z.array(ToolViewSchema), conflicts: z.array(ConflictViewSchema) })),
  /** Runs a tool through the whole pipeline (permissions, approval, checkpoint, trace). */
  'tools.call': channel(ToolCallRequestSchema, CallOutcomeSchema),
  /** Cancels a running call of this GUI session (the server is told). */
  'tools.cancel': channel(z.object({ callId: CallIdSchema }).strict(), z.object({ cancelled: z.boolean() })),
} as const satisfies DomainChannels;

export const toolEvents = {
  'tools.changed': z.object({ tools: z.array(ToolViewSchema), conflicts: z.array(ConflictViewSchema) }),
  /** Progress of a running GUI call. */
  'call.progress': z.object({
    callId: z.string(),
    progress: z.number(),
    total: z.number().optional(),
    message: z.string().optional(),
  }),
  /** A running GUI call the server runs as a task (the tasks extension): its id and status, never its result. */
  'call.task': z.object({
    callId: z.string(),
    taskId: z.string(),
    status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
    statusMessage: z.string().optional(),
  }),
} as const satisfies DomainEvents;
