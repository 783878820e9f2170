/** The contract's `traces.*` part: listing, reading and exporting traces (their shapes: shared/traces.ts). */
import { z } from 'zod';
import { ServerIdSchema } from '../serverConfig.js';
import { CALL_SESSION_ID_MAX } from './callKey.js';
import { TraceDetailSchema, TraceExportSchema, TraceStatusSchema, TraceSummarySchema } from '../traces.js';
import type { DomainChannels, DomainEvents } from './common.js';
import { Cursor, PageLimit, channel } from './common.js';

export const traceChannels = {
  'traces.list': channel(
    z
      .object({
        toolName: z.string().max(200).optional(),
        serverId: ServerIdSchema.optional(),
        status: TraceStatusSchema.optional(),
        /** Any recorded call's session (an agent's runs to CALL_SESSION_ID_MAX characters). */
        sessionId: z.string().max(CALL_SESSION_ID_MAX).optional(),
        /** Only the calls of this caller: `gui`, or an agent's name. */
        userId: z.string().max(200).optional(),
        limit: PageLimit,
        cursor: Cursor,
      })
      .strict(),
    z.object({ traces: z.array(TraceSummarySchema), nextCursor: z.string().optional() }),
  ),
  'traces.get': channel(z.object({ traceId: z.string().min(1).max(100) }).strict(), TraceDetailSchema),
  'traces.export': channel(z.object({ traceId: z.string().min(1).max(100) }).strict(), TraceExportSchema),
} as const satisfies DomainChannels;

export const traceEvents = {
  /** A trace started or finished (the list refreshes from it). */
  'trace.changed': z.object({ trace: TraceSummarySchema }),
} as const satisfies DomainEvents;
