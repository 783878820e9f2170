/**
 * The shapes of traces and their events, as zod schemas: the tracer stores and publishes them,
 * and the IPC contract carries them to the GUI. Imports nothing but zod.
 *
 * Event data objects are loose: extra fields are kept (and redacted like the rest), so the
 * executor can add detail without a schema change.
 */
import { z } from 'zod';

/** `interrupted`: the process running the call died before it finished (closed at the next start). */
/** `cancelled`: the caller cancelled it, or the app ended it (an agent revoked, a server removed) — while it waited for approval (nothing ran) or while it ran (it may have acted). */
export const TraceStatusSchema = z.enum(['running', 'ok', 'error', 'denied', 'replayed', 'interrupted', 'cancelled']);
export type TraceStatus = z.infer<typeof TraceStatusSchema>;

/** An error as traces store it: a code when there is one, and a redacted message. */
const TraceErrorSchema = z.looseObject({ code: z.string().optional(), message: z.string() });
export type TraceError = z.infer<typeof TraceErrorSchema>;

const count = z.number().int().nonnegative();
const ms = z.number().nonnegative();

/** The data each event type carries. */
export const TraceEventDataSchemas = {
  /** The policy's answer for this call. */
  decision: z.looseObject({
    outcome: z.enum(['allow', 'deny', 'ask']),
    reason: z.string().optional(),
    ruleId: z.string().optional(),
  }),
  /** A guardrail that inspected the call (arguments or result). */
  guardrail: z.looseObject({
    name: z.string(),
    outcome: z.enum(['passed', 'blocked', 'modified']),
    reason: z.string().optional(),
  }),
  approval_requested: z.looseObject({ approvalId: z.string().optional(), reason: z.string().optional() }),
  /** `waitedMs` is filled in from approval_requested when absent. */
  approval_answered: z.looseObject({
    approved: z.boolean(),
    answeredBy: z.string().optional(),
    waitedMs: ms.optional(),
  }),
  /** What the checkpoint claim answered. */
  claim: z.looseObject({ outcome: z.enum(['owner', 'replay', 'in_progress', 'arguments_mismatch', 'failed']) }),
  attempt_started: z.looseObject({ attempt: count.min(1) }),
  /** `durationMs` is filled in from the matching attempt_started when absent. */
  attempt_finished: z.looseObject({
    attempt: count.min(1),
    outcome: z.enum(['ok', 'error']),
    durationMs: ms.optional(),
    error: TraceErrorSchema.optional(),
    recoverable: z.boolean().optional(),
  }),
  retry_scheduled: z.looseObject({ nextAttempt: count.min(2), delayMs: ms, reason: z.string() }),
  /**
   * A 2026-07-28 server answered the call with `input_required`: one event per round, what it
   * asked and who answered (an agent through the gateway, the person, or the client itself for
   * roots) — never the answers.
   */
  input_requested: z.looseObject({
    round: count.min(1),
    requests: z.array(
      z.looseObject({
        kind: z.enum(['elicitation', 'sampling', 'roots']),
        answeredBy: z.enum(['agent', 'person', 'client']),
      }),
    ),
  }),
  /**
   * The server runs the call as a task (the tasks extension): one event when it names the task,
   * then one per status it passes through — never its result.
   */
  task: z.looseObject({
    taskId: z.string(),
    status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
    statusMessage: z.string().optional(),
  }),
  /**
   * The app asked the server how a call it ran as a task ended — at start, when the server became
   * ready later, or at the person's request — or could not ask: `outcome` says which. An answered
   * check is followed by the task's statuses (`task`) and the stored end (`completed`/`failed`).
   */
  task_check: z.looseObject({
    taskId: z.string(),
    trigger: z.enum(['start', 'server_ready', 'person']),
    outcome: z.enum(['answered', 'server_unavailable', 'unknown_to_server', 'not_supported', 'no_answer']),
    reason: z.string().optional(),
    /** How long the check waited for the server to be ready. */
    waitedMs: ms.optional(),
  }),
  /**
   * The sandbox refused something the call's process tried (a connection to a host it may not
   * reach, …): the library's line, attributed to this call by its wrap's id.
   */
  /** A completed checkpoint answered the call; nothing ran. */
  replay: z.looseObject({
    originalTraceId: z.string().optional(),
    completedAt: z.number().optional(),
    resolvedBy: z.literal('manual').optional(),
  }),
  /**
   * The call's server, sandboxed (issue 29), was refused something while the call ran: a
   * connection its proxy denied (what sandbox-runtime records), in the library's words, redacted.
   * Attributed to every call in flight on that server then (the library knows the server, not the call).
   */
  sandbox_violation: z.looseObject({ line: z.string().max(2_000) }),
  completed: z.looseObject({ isError: z.boolean(), contentBlocks: count.optional() }),
  failed: z.looseObject({ error: TraceErrorSchema }),
} as const;

export type TraceEventType = keyof typeof TraceEventDataSchemas;

/** What `TraceHandle.event` accepts for a type. */
export type TraceEventInput<T extends TraceEventType> = z.input<(typeof TraceEventDataSchemas)[T]>;

function storedEvent<T extends TraceEventType>(type: T) {
  return z.object({
    traceId: z.string(),
    /** 1, 2, 3… in the order the events happened. */
    seq: count.min(1),
    type: z.literal(type),
    /** Epoch ms. */
    at: z.number(),
    /** For events that close a span (attempt_finished, approval_answered). */
    durationMs: ms.optional(),
    data: TraceEventDataSchemas[type] as (typeof TraceEventDataSchemas)[T],
  });
}

const TraceEventSchema = z.discriminatedUnion('type', [
  storedEvent('decision'),
  storedEvent('guardrail'),
  storedEvent('approval_requested'),
  storedEvent('approval_answered'),
  storedEvent('claim'),
  storedEvent('attempt_started'),
  storedEvent('attempt_finished'),
  storedEvent('retry_scheduled'),
  storedEvent('input_requested'),
  storedEvent('task'),
  storedEvent('task_check'),
  storedEvent('replay'),
  storedEvent('sandbox_violation'),
  storedEvent('completed'),
  storedEvent('failed'),
]);
export type TraceEvent = z.infer<typeof TraceEventSchema>;

export const TraceSummarySchema = z.object({
  traceId: z.string(),
  sessionId: z.string(),
  callId: z.string(),
  userId: z.string(),
  toolName: z.string(),
  serverId: z.string(),
  status: TraceStatusSchema,
  startedAt: z.number(),
  endedAt: z.number().optional(),
  durationMs: ms.optional(),
  error: TraceErrorSchema.optional(),
});
export type TraceSummary = z.infer<typeof TraceSummarySchema>;

export const TraceDetailSchema = z.object({ trace: TraceSummarySchema, events: z.array(TraceEventSchema) });
export type TraceDetail = z.infer<typeof TraceDetailSchema>;

/** What "export trace" writes: self-describing and JSON-only. */
export const TraceExportSchema = z.object({
  format: z.literal('miniharness-trace'),
  version: z.literal(1),
  exportedAt: z.number(),
  trace: TraceSummarySchema,
  events: z.array(TraceEventSchema),
});
export type TraceExport = z.infer<typeof TraceExportSchema>;

/** What `Tracer.onEvent` listeners receive, after the change is stored. */
export const TraceNotificationSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('trace_started'), trace: TraceSummarySchema }),
  z.object({ kind: z.literal('event'), event: TraceEventSchema }),
  z.object({ kind: z.literal('trace_finished'), trace: TraceSummarySchema }),
]);
export type TraceNotification = z.infer<typeof TraceNotificationSchema>;
