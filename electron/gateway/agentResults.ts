/**
 * What an agent receives when its call did not run or did not finish: a tool result with
 * `isError: true` and one sentence a model can act on (retry, change the arguments, ask the user,
 * or stop) — not a protocol error, which many clients show as a crash. The error's contract code
 * travels in `_meta` for agents that branch on it. The message is already redacted.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ErrorShape } from '../../shared/contract.js';
import { META_CALL_ID, META_TRACE_ID } from '../../shared/agents.js';
import { CANCELLED_BY_CALLER } from '../security/errors.js';
import type { WaitEnded } from '../security/waitEnded.js';

export const META_ERROR = 'io.miniharness/error';

function denialSentence(error: ErrorShape, tool: string): string {
  const denial = error.details?.denial;
  // What ran: nothing — unless an earlier call with the same callId did (its record says so).
  const ran =
    denial?.keyRecorded === 'completed'
      ? 'this call did not run again (an earlier call with the same callId ran; its result is recorded in MiniHarness)'
      : denial?.keyRecorded === 'started'
        ? 'this call did not run again (an earlier call with the same callId started and may have acted; its result is unknown)'
        : 'nothing ran';
  switch (denial?.by) {
    case 'person':
      return `The user denied this call of ${tool} in MiniHarness, so ${ran}. Do not retry it; ask the user what to do instead.`;
    case 'approval_timeout':
      return `Nobody answered the approval request for ${tool} in MiniHarness within ${Math.round((denial.timeoutMs ?? 0) / 1000)} s, so ${ran}. Ask the user to open MiniHarness, then call it again.`;
    case 'approval_error':
      return `MiniHarness could not show the approval request for ${tool}, so ${ran}. Ask the user to open MiniHarness, then call it again.`;
    case 'guardrail':
      return `MiniHarness refused this call of ${tool} before it ran: ${denial.reason}. Change the arguments to avoid this, or ask the user.`;
    case 'rule':
    case 'default':
      return `MiniHarness's permission rules do not allow ${tool} (${denial.reason}), so ${ran}. Do not retry; ask the user to allow it in MiniHarness → Permissions if it is needed.`;
    case 'cancelled':
      // The app ended the wait (waitEnded.ts): say what happened, not just "cancelled".
      if (denial.reason !== CANCELLED_BY_CALLER)
        return `${upperFirst(denial.reason)} while this call of ${tool} waited for approval; ${ran}. Do not retry it unless the user asks you to.`;
      return `The call of ${tool} was cancelled while it waited for approval; ${ran}.`;
    default:
      return `MiniHarness did not allow this call of ${tool}: ${error.message}`;
  }
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The sentence for an error, by its code; `ended`: the app ended the call (waitEnded.ts), the reason its signal carries. */
export function agentErrorText(error: ErrorShape, tool: string, callId: string, ended?: WaitEnded): string {
  switch (error.code) {
    case 'permission_denied':
    case 'approval_cancelled':
      return denialSentence(error, tool);
    case 'in_progress':
    case 'duplicate_call':
      return `The call with callId "${callId}" is still running, or its result is unknown because an earlier attempt was interrupted (it may have acted). Do not run it again under a new callId; retry later with the same callId to get its result, or ask the user to check MiniHarness → History.`;
    case 'arguments_mismatch':
      return `The callId "${callId}" was already used for a call with other arguments. Use a new callId for a new call.`;
    case 'failed':
      return `An earlier attempt with callId "${callId}" failed and is recorded as failed: ${error.message} Use a new callId to try again.`;
    case 'invalid_arguments': {
      const fields = Object.entries(error.details?.fieldErrors ?? {}).map(
        ([field, messages]) => `${field || '(arguments)'}: ${messages.join('; ')}`,
      );
      return `The arguments do not match the input schema of ${tool}${fields.length > 0 ? ` (${fields.join(', ')})` : ''}. Nothing ran; fix them and call again.`;
    }
    case 'cancelled':
      if (ended)
        return `${upperFirst(ended.why)} while this call of ${tool} was running: MiniHarness told the server to cancel it, but it may have acted. Ask the user to check MiniHarness → History before calling it again.`;
      return `The call of ${tool} was cancelled.`;
    // A call that failed after it was claimed keeps its record `started` (the server may have
    // acted), so the same callId answers "still running, or unknown" from then on: never send an
    // agent back to it. `retryable` errors (server unreachable or not connected) sent nothing.
    case 'result_not_recorded':
      return `The call of ${tool} ran and may have acted, but MiniHarness could not record its result (its database could not be written, e.g. the disk is full), so its result is unknown. Do not repeat the call under a new callId; ask the user to check MiniHarness → History.`;
    case 'timeout':
      return `The server did not answer ${tool} in time: ${error.message} It may have acted, so its result is unknown: do not repeat the call under a new callId; ask the user to check MiniHarness → History.`;
    default:
      return `MiniHarness could not complete ${tool}: ${error.message}${error.details?.retryable ? ' Nothing reached the server, so you may call it again with a new callId.' : ''}`;
  }
}

export function agentErrorResult(error: ErrorShape, tool: string, callId: string, ended?: WaitEnded): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: agentErrorText(error, tool, callId, ended) }],
    _meta: {
      [META_ERROR]: error.code,
      [META_CALL_ID]: callId,
      ...(error.details?.traceId ? { [META_TRACE_ID]: error.details.traceId } : {}),
    },
  };
}
