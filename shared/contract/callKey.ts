/**
 * The key of a recorded call — (sessionId, callId) — as every side spells it: the agent gateway
 * checks an agent's `_meta["io.miniharness/callId"]` and `_meta["io.miniharness/session"]` with
 * `CallKeyPartSchema`, and every channel that names a recorded call (`tools.call`, `history.*`,
 * the apps' calls) takes the same schemas, so any call an agent could make is one History can
 * address (show, replay, rerun, ask about, resolve).
 */
import { z } from 'zod';

/** The longest key part an agent may name (its callId, or its session). */
export const CALL_KEY_PART_MAX = 200;

/** Printable ASCII without spaces: what an agent may use as a callId or a session. */
const KEY_PART = new RegExp(`^[\\x21-\\x7e]{1,${CALL_KEY_PART_MAX}}$`);

export const CallKeyPartSchema = z
  .string()
  .regex(KEY_PART, `must be 1–${CALL_KEY_PART_MAX} printable ASCII characters without spaces`);

/** A call's id within its session: an agent's own callId, `gui-<uuid>`, a model's tool-call id, … */
export const CallIdSchema = CallKeyPartSchema.describe('callId');

/**
 * The longest session id a recorded call has: an agent's session is recorded as
 * `agent:<agent id, at most 100>:<its session, at most CALL_KEY_PART_MAX>`.
 */
export const CALL_SESSION_ID_MAX = 'agent:'.length + 100 + 1 + CALL_KEY_PART_MAX;

export const CallSessionIdSchema = z
  .string()
  .regex(
    new RegExp(`^[\\x21-\\x7e]{1,${CALL_SESSION_ID_MAX}}$`),
    `must be 1–${CALL_SESSION_ID_MAX} printable ASCII characters without spaces`,
  );
