/** The contract's `serverRequests.*` part: what servers ask the person (elicitation, sampling), and the answers (their shapes: shared/serverRequests.ts). */
import { z } from 'zod';
import { ServerRequestAnswerSchema, ServerRequestClosedSchema, ServerRequestViewSchema } from '../serverRequests.js';
import type { DomainChannels, DomainEvents } from './common.js';
import { Empty, channel } from './common.js';

export const serverRequestChannels = {
  /** What servers are asking the person now (elicitation, sampling), oldest first. */
  'serverRequests.list': channel(Empty, z.array(ServerRequestViewSchema)),
  /**
   * Answers one request, once. A stale, repeated or unknown id is refused (`stale_ask`); an answer that
   * does not fit the request is `invalid_request`; form values that do not fit the server's schema are
   * `validation` with fieldErrors, and the request stays open.
   */
  'serverRequests.answer': channel(
    z.object({ requestId: z.string().min(1).max(100), answer: ServerRequestAnswerSchema }).strict(),
    z.object({ accepted: z.literal(true) }),
  ),
} as const satisfies DomainChannels;

export const serverRequestEvents = {
  /** A server asks the person something (elicitation, sampling): shown as a dialog naming the server. */
  'serverRequest.opened': ServerRequestViewSchema,
  /** The request is no longer open (answered, expired, or withdrawn by the server or its connection). */
  'serverRequest.closed': ServerRequestClosedSchema,
} as const satisfies DomainEvents;
