/** What the cross-process tests and their child processes agree on: inputs, results, messages. */
import { hashArguments } from '../../electron/checkpoints/hash.js';
import type { CheckpointResult, ClaimInput } from '../../electron/checkpoints/types.js';

export const CHILD_SCRIPT = new URL('./child.ts', import.meta.url).pathname;

export type ChildMessage =
  | { type: 'booted' }
  | { type: 'ready' }
  | { type: 'done'; outcomes: Record<string, string> }
  | { type: 'error'; message: string };

export function childInput(sessionId: string, callId: string, traceId: string): ClaimInput {
  const args = { target: callId, session: sessionId };
  return {
    sessionId,
    callId,
    userId: 'u1',
    toolName: 'send_email',
    serverId: 'mail',
    argsHash: hashArguments(args),
    args,
    traceId,
  };
}

/** A deterministic result per call, 4 to 32 KB so a kill often lands mid-write. */
export function childResult(callId: string): CheckpointResult {
  const n = Number(callId.replace(/\D/g, '')) || 0;
  const size = ((n % 8) + 1) * 4_096;
  const text = `${callId}:`.repeat(Math.ceil(size / (callId.length + 1))).slice(0, size);
  return { content: [{ type: 'text', text }], structuredContent: { callId, size }, isError: false };
}
