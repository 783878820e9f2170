/**
 * Pieces every part of the IPC contract (shared/contract.ts and its domain files here) builds
 * on: the error shape a failed call returns, the `channel()` pairing of request and response
 * schemas, and the small shapes several domains use (an empty request, a JSON object, a page).
 */
import { z } from 'zod';
import type { ChannelName, EventName } from '../channelNames.js';
import { ErrorCodeSchema, ErrorDetailsSchema } from '../errors.js';

/** The one serializable error shape every failed call returns: a code of the union and typed details (shared/errors.ts). Never holds a secret. */
export const ErrorShapeSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: ErrorDetailsSchema.optional(),
});
/** The same shape as the renderer reads it: a code from a newer main is `unrecognized`, details it cannot read are dropped. */
export const ReceivedErrorShapeSchema = ErrorShapeSchema.extend({
  code: ErrorCodeSchema.catch('unrecognized'),
  details: ErrorDetailsSchema.optional().catch(undefined),
});
export type ErrorShape = z.infer<typeof ErrorShapeSchema>;

export const Empty = z.object({}).strict();
export const JsonObject = z.record(z.string(), z.unknown());
/** An MCP content block, kept in its own shape (text, image, resource link, …). */
export const ContentBlockSchema = z.looseObject({ type: z.string() });

export const PageLimit = z.number().int().min(1).max(500).default(100);
export const Cursor = z.string().max(500).optional();

export function channel<Req extends z.ZodType, Res extends z.ZodType>(request: Req, response: Res) {
  return { request, response };
}

/** Keys the contract by the names in channelNames.ts: a missing or an extra channel or event fails the typecheck. */
export type ChannelSpec = { request: z.ZodType; response: z.ZodType };
/** One domain's channels: only names channelNames.ts lists (contract.ts checks that all are there). */
export type DomainChannels = { [K in ChannelName]?: ChannelSpec };
/** One domain's events, likewise. */
export type DomainEvents = { [E in EventName]?: z.ZodType };
