/**
 * The frames of the browser-mode bridge: the IPC contract carried over one WebSocket.
 * Renderer → host: `call`. Host → renderer: `result` (for one call) and `event`.
 * Each side validates what it receives with these schemas before looking at it.
 */
import { z } from 'zod';
import type { ErrorShape } from './contract.js';
import { ReceivedErrorShapeSchema } from './contract.js';
import { MAX_BRIDGE_FRAME_BYTES, formatBytes, utf8Length } from './limits.js';

export { MAX_BRIDGE_FRAME_BYTES } from './limits.js';

export const BRIDGE_PATH = '/bridge';
/** The WebSocket sub-protocol the host speaks. */
export const BRIDGE_PROTOCOL = 'miniharness.v1';

export const CallFrameSchema = z
  .object({
    t: z.literal('call'),
    id: z.number().int().nonnegative(),
    channel: z.string().max(100),
    /** Validated by the channel's request schema; JSON drops an undefined one. */
    payload: z.unknown().optional(),
  })
  .strict();
export type CallFrame = z.infer<typeof CallFrameSchema>;

const ResultFrameSchema = z.discriminatedUnion('ok', [
  z.object({ t: z.literal('result'), id: z.number(), ok: z.literal(true), result: z.unknown() }),
  z.object({ t: z.literal('result'), id: z.number(), ok: z.literal(false), error: ReceivedErrorShapeSchema }),
]);
export type ResultFrame = z.infer<typeof ResultFrameSchema>;

const EventFrameSchema = z.object({ t: z.literal('event'), event: z.string(), payload: z.unknown() });

export const HostFrameSchema = z.union([ResultFrameSchema, EventFrameSchema]);

/** What a dispatch returns, on any transport. */
export type DispatchResult = { ok: true; result: unknown } | { ok: false; error: ErrorShape };

/** Error codes of the bridge itself (the contract's own codes pass through unchanged). */
export const BRIDGE_ERROR = {
  /** Not a call frame (not JSON, or not the frame's shape). */
  invalidFrame: 'invalid_frame',
  /** The request does not fit in one bridge message; nothing was sent. */
  requestTooLarge: 'request_too_large',
  /** The id of a request still in flight on this connection was used again; that copy was refused. */
  duplicateRequestId: 'duplicate_request_id',
  /** The request nests objects and arrays deeper than MAX_JSON_DEPTH (shared/jsonDepth.ts); nothing was run. */
  requestTooDeep: 'request_too_deep',
} as const;

/** A serialized call frame and its size on the wire. */
export interface SerializedCall {
  text: string;
  sizeBytes: number;
}

export function serializeCall(frame: CallFrame): SerializedCall {
  const text = JSON.stringify(frame);
  return { text, sizeBytes: utf8Length(text) };
}

/** The refusal of a request that does not fit in one bridge message. */
export function requestTooLarge(channel: string, sizeBytes: number, limitBytes = MAX_BRIDGE_FRAME_BYTES): ErrorShape {
  return {
    code: BRIDGE_ERROR.requestTooLarge,
    message: `This "${channel}" request is ${formatBytes(sizeBytes)}, more than the ${formatBytes(limitBytes)} one message to the MiniHarness host can carry. Nothing was sent.`,
    details: { limitBytes, sizeBytes },
  };
}

/** The size refusal a contract schema raised (an issue with `params.tooLarge`), if any. */
export function tooLargeIssueOf(
  error: z.ZodError,
): { limitBytes: number; sizeBytes: number; message: string } | undefined {
  for (const issue of error.issues) {
    if (issue.code !== 'custom') continue;
    const tooLarge = (issue.params as { tooLarge?: { limitBytes?: unknown; sizeBytes?: unknown } } | undefined)
      ?.tooLarge;
    if (typeof tooLarge?.limitBytes === 'number' && typeof tooLarge.sizeBytes === 'number') {
      return { limitBytes: tooLarge.limitBytes, sizeBytes: tooLarge.sizeBytes, message: issue.message };
    }
  }
  return undefined;
}
