/**
 * What a local tool's own pre-flight check answers (paths inside the roots, a command the
 * command guard accepts). The executor runs it before any permission decision; a refusal is
 * a DENY with this reason, whatever the rules say.
 */
export type GuardrailResult =
  | {
      ok: true;
      /** Set when a person must approve this call whatever the rules say (e.g. run_command without an OS sandbox). */
      mustAsk?: string;
    }
  | { ok: false; reason: string };

export const GUARDRAIL_OK: GuardrailResult = Object.freeze({ ok: true });

export function guardrailRefusal(reason: string): GuardrailResult {
  return { ok: false, reason };
}

/** Runs a check that throws on refusal; its error message becomes the refusal reason. */
export async function guardrailFrom(check: () => Promise<unknown>): Promise<GuardrailResult> {
  try {
    await check();
    return GUARDRAIL_OK;
  } catch (error) {
    return guardrailRefusal(error instanceof Error ? error.message : 'the safety check failed');
  }
}
