/**
 * The frames of the browser-mode bridge: the IPC contract carried over one WebSocket.
 * Renderer → host: `call`. Host → renderer: `result` (for one call) and `event`.
 * Each side validates what it receives with these schemas before looking at it.
 */
import { z } from 'zod';
import { ErrorShapeSchema } from './contract.js';

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

export const ResultFrameSchema = z.discriminatedUnion('ok', [
  z.object({ t: z.literal('result'), id: z.number(), ok: z.literal(true), result: z.unknown() }),
  z.object({ t: z.literal('result'), id: z.number(), ok: z.literal(false), error: ErrorShapeSchema }),
]);
export type ResultFrame = z.infer<typeof ResultFrameSchema>;

export const EventFrameSchema = z.object({ t: z.literal('event'), event: z.string(), payload: z.unknown() });
export type EventFrame = z.infer<typeof EventFrameSchema>;

export const HostFrameSchema = z.union([ResultFrameSchema, EventFrameSchema]);

/** What a dispatch returns, on any transport. */
export type DispatchResult = { ok: true; result: unknown } | { ok: false; error: z.infer<typeof ErrorShapeSchema> };
