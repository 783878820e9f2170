/** The contract's `asks.*` part: what servers ask the person (elicitation, sampling), and the answers (their shapes: shared/asks.ts). */
import { z } from 'zod';
import { AskAnswerSchema, AskClosedSchema, AskViewSchema } from '../asks.js';
import type { DomainChannels, DomainEvents } from './common.js';
import { Empty, channel } from './common.js';

export const askChannels = {
  /** What servers are asking the person now (elicitation, sampling), oldest first. */
  'asks.list': channel(Empty, z.array(AskViewSchema)),
  /**
   * Answers one ask, once. A stale, repeated or unknown id is refused (`stale_ask`); an answer that
   * does not fit the ask is `invalid_request`; form values that do not fit the server's schema are
   * `validation` with fieldErrors, and the ask stays open.
   */
  'asks.answer': channel(z.object({ requestId: z.string().min(1).max(100), answer: AskAnswerSchema }).strict(), z.object({ accepted: z.literal(true) })),
} as const satisfies DomainChannels;

export const askEvents = {
  /** A server asks the person something (elicitation, sampling): shown as a dialog naming the server. */
  'ask.requested': AskViewSchema,
  /** The ask is no longer open (answered, expired, or withdrawn by the server or its connection). */
  'ask.closed': AskClosedSchema,
} as const satisfies DomainEvents;
