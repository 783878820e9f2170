/** The contract's `approvals.*` part: the calls waiting for the person's approval, and the answer. */
import { z } from 'zod';
import type { DomainChannels, DomainEvents } from './common.js';
import { Empty, JsonObject, channel } from './common.js';
import { PoisonFlagSchema, ToolChangeSchema } from './toolPins.js';

const ApprovalAnswerSchema = z.enum(['allow-once', 'allow-session', 'allow-always', 'deny']);

/**
 * A sandboxed stdio server tried to reach a host its profile does not decide (issue 29): the
 * approval is for that host and port, not for a tool call. Its caller is `SANDBOX_CALLER`.
 */
const EgressAskSchema = z.object({
  host: z.string(),
  port: z.number().int(),
  /** The call in flight on that server when it tried, if one. */
  call: z.object({ callId: z.string(), toolName: z.string(), userId: z.string() }).optional(),
  /** What "always" adds to the server's `sandbox.hosts`; absent when the host cannot be listed there. */
  entry: z.string().optional(),
});
export type EgressAsk = z.infer<typeof EgressAskSchema>;

/** The caller of an egress approval: the sandbox asks for a server, no person or agent did. */
export const SANDBOX_CALLER = 'sandbox';

export const ApprovalViewSchema = z.object({
  requestId: z.string(),
  sessionId: z.string(),
  /** Who asks: `gui` for the person's own calls, else the agent's name (gateway). */
  userId: z.string(),
  toolName: z.string(),
  serverId: z.string(),
  args: JsonObject,
  annotations: JsonObject.optional(),
  /** Why it asks, in words. */
  reason: z.string(),
  expiresAt: z.number(),
  /**
   * When the caller itself stops waiting (epoch ms), when known — an agent's client default —
   * and how that is known, in words. Absent: unknown (or the person's own call).
   */
  callerWait: z.object({ until: z.number(), basis: z.string() }).optional(),
  /** Present: a sandboxed server's connection waits, not a tool call (`toolName` is then `host:port`). */
  egress: EgressAskSchema.optional(),
  /** The tool changed since it was pinned (approved): what changed, for the side-by-side diff. */
  change: ToolChangeSchema.optional(),
  /** The tool's poisoning flags, each naming its passage (a warning; never a block by itself). */
  flags: z.array(PoisonFlagSchema).optional(),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;

export const approvalChannels = {
  'approvals.list': channel(Empty, z.array(ApprovalViewSchema)),
  /** Answers one pending approval; a stale, repeated or unknown request id is refused. */
  'approvals.answer': channel(
    z.object({ requestId: z.string().min(1).max(100), answer: ApprovalAnswerSchema }).strict(),
    z.object({ accepted: z.literal(true) }),
  ),
} as const satisfies DomainChannels;

export const approvalEvents = {
  'approval.requested': ApprovalViewSchema,
  /** The approval is no longer pending (answered, timed out, or the call was cancelled). */
  'approval.closed': z.object({
    requestId: z.string(),
    outcome: z.enum(['answered', 'expired', 'cancelled']),
    /** `miniharness serve`: who answered it (a signed-in person, or the CLI) and how; others' pages say so. */
    decidedBy: z.string().max(300).optional(),
    answer: ApprovalAnswerSchema.optional(),
  }),
  /** Desktop app: the person clicked the OS notification of this approval; bring it forward. */
  'approval.show': z.object({ requestId: z.string() }),
} as const satisfies DomainEvents;
