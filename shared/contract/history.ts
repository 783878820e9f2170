/** The contract's `history.*` part: the checkpoint records of every call, replay, rerun and resolving by hand. */
import { z } from 'zod';
import type { DomainChannels } from './common.js';
import { Cursor, Empty, PageLimit, channel } from './common.js';
import { CallIdSchema, CallSessionIdSchema } from './callKey.js';
import { CallOutcomeSchema, ToolResultViewSchema } from './tools.js';

/**
 * The History status filter: a stored status, or `tool_error` (completed, but the result has
 * `isError`; `completed` then means it has not), or `cancelled` (a `started` record whose call
 * was cancelled while it ran; `started` then excludes those).
 */
const HistoryStatusFilterSchema = z.enum(['started', 'completed', 'failed', 'tool_error', 'cancelled']);

const HistoryRecordSchema = z.object({
  sessionId: z.string(),
  callId: z.string(),
  userId: z.string(),
  toolName: z.string(),
  serverId: z.string(),
  /**
   * `started`: running now in this app. `unknown`: started, but no live call owns it (its owner
   * failed or the app died mid-call) — the remote side may have acted; resolve it by hand.
   * `cancelled`: the same, because its call was cancelled while it ran (by its caller, or by the
   * app: an agent revoked, a server removed) — the server was told, but may have acted.
   */
  status: z.enum(['started', 'unknown', 'completed', 'failed', 'cancelled']),
  args: z.unknown(),
  result: ToolResultViewSchema.optional(),
  lastError: z.object({ code: z.string().optional(), message: z.string(), at: z.number() }).optional(),
  attempts: z.number(),
  traceId: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  resolvedBy: z.literal('manual').optional(),
  resolutionNote: z.string().optional(),
  /** The server's task id, when the server ran the call as a task (the tasks extension): the app asks the server how it ended. */
  taskId: z.string().optional(),
  /**
   * In a `history.page` row whose arguments or result are large: they are left out of the row
   * (`args` absent, no `result`) and described here; `history.get` returns the whole record.
   */
  preview: z
    .object({
      argsBytes: z.number(),
      resultBytes: z.number().optional(),
      /** The first characters of the left-out arguments' JSON. */
      args: z.string().optional(),
      /** The first characters of the left-out result's JSON. */
      result: z.string().optional(),
      /** The left-out result's `isError` (a tool error), so the row can say so without it. */
      resultIsError: z.boolean().optional(),
      truncated: z.boolean(),
    })
    .optional(),
});
export type HistoryRecordView = z.infer<typeof HistoryRecordSchema>;

export const historyChannels = {
  'history.sessions': channel(
    Empty,
    z.object({
      current: z.string(),
      sessions: z.array(
        z.object({ sessionId: z.string(), count: z.number(), started: z.number(), lastActivity: z.number() }),
      ),
    }),
  ),
  'history.page': channel(
    z
      .object({
        sessionId: CallSessionIdSchema.optional(),
        status: HistoryStatusFilterSchema.optional(),
        toolName: z.string().max(200).optional(),
        /** Only the calls of this caller: `gui`, or an agent's name. */
        userId: z.string().max(200).optional(),
        limit: PageLimit,
        cursor: Cursor,
      })
      .strict(),
    z.object({ records: z.array(HistoryRecordSchema), nextCursor: z.string().optional() }),
  ),
  /** One whole record (a page row may carry only a preview of large arguments or results). */
  'history.get': channel(
    z.object({ sessionId: CallSessionIdSchema, callId: CallIdSchema }).strict(),
    HistoryRecordSchema,
  ),
  /** Returns a completed call's stored result (nothing runs) and records the replay in a trace. */
  'history.replay': channel(
    z.object({ sessionId: CallSessionIdSchema, callId: CallIdSchema }).strict(),
    CallOutcomeSchema,
  ),
  /** Runs a recorded call again as a NEW call (new callId, permissions and approval again). */
  'history.rerun': channel(
    z.object({ sessionId: CallSessionIdSchema, callId: CallIdSchema, newCallId: CallIdSchema }).strict(),
    CallOutcomeSchema,
  ),
  /**
   * Asks the server now how a recorded call it ran as a task ended (`tasks/get`): completed → its
   * result is stored, failed → recorded failed, still working → followed to its end. Returns the
   * record as it stands after asking.
   */
  'history.askTask': channel(
    z.object({ sessionId: CallSessionIdSchema, callId: CallIdSchema }).strict(),
    HistoryRecordSchema,
  ),
  /** A person decides how a call whose result is unknown ended (after checking the remote side). */
  'history.resolve': channel(
    z
      .object({
        sessionId: CallSessionIdSchema,
        callId: CallIdSchema,
        resolution: z.discriminatedUnion('status', [
          z.object({ status: z.literal('failed'), note: z.string().max(1000).optional() }).strict(),
          z
            .object({
              status: z.literal('completed'),
              resultText: z.string().max(100_000),
              note: z.string().max(1000).optional(),
            })
            .strict(),
        ]),
      })
      .strict(),
    HistoryRecordSchema,
  ),
} as const satisfies DomainChannels;
