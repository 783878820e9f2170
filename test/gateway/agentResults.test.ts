/**
 * What an agent reads when its call did not run or did not finish: one sentence per kind of
 * refusal, built from the real domain errors as the gateway receives them (toErrorShape).
 */
import { describe, expect, it } from 'vitest';
import { META_ERROR, agentErrorResult, agentErrorText } from '../../electron/gateway/agentResults.js';
import { AppError, toErrorShape } from '../../electron/core/errors.js';
import {
  CheckpointArgumentsMismatchError,
  CheckpointFailedError,
  CheckpointInProgressError,
} from '../../electron/checkpoints/errors.js';
import { InvalidArgumentsError } from '../../electron/harness/errors.js';
import { MCPRequestTimeout, MCPServerUnavailableError } from '../../electron/mcp/errors.js';
import { ApprovalCancelledError, PermissionDeniedError } from '../../electron/security/errors.js';
import { META_CALL_ID, META_TRACE_ID } from '../../shared/agents.js';

const TOOL = 'fx__append';
const CALL = 'call-42';

function sentence(error: Error): string {
  return agentErrorText(toErrorShape(error), TOOL, CALL);
}

describe('agentErrorText', () => {
  it.each([
    [
      new PermissionDeniedError('append', 'fx', 'ASK', 'deny', 'the user denied it'),
      /^The user denied this call of fx__append in MiniHarness, so nothing ran\. Do not retry it; ask the user/,
    ],
    [
      new PermissionDeniedError('append', 'fx', 'ASK', 'timeout', 'nobody answered', undefined, 120_000),
      /^Nobody answered the approval request for fx__append in MiniHarness within 120 s, so nothing ran\. Ask the user to open MiniHarness/,
    ],
    [
      new PermissionDeniedError('append', 'fx', 'ASK', 'error', 'no window'),
      /^MiniHarness could not show the approval request for fx__append, so nothing ran\./,
    ],
    [
      new PermissionDeniedError('run_command', 'local', 'DENY', undefined, 'the command writes outside the workspace', {
        by: 'guardrail',
      }),
      /^MiniHarness refused this call of fx__append before it ran: the command writes outside the workspace\. Change the arguments/,
    ],
    [
      new PermissionDeniedError('append', 'fx', 'DENY', undefined, 'rule "no writes"', { by: 'rule', ruleId: 'r1' }),
      /^MiniHarness's permission rules do not allow fx__append \(rule "no writes"\), so nothing ran\. Do not retry; ask the user to allow it in MiniHarness → Permissions/,
    ],
    [
      new PermissionDeniedError('append', 'fx', 'DENY', undefined, 'the default policy denies it'),
      /^MiniHarness's permission rules do not allow fx__append \(the default policy denies it\)/,
    ],
    [
      new ApprovalCancelledError('append', 'fx', 'ASK'),
      /^The call of fx__append was cancelled while it waited for approval; nothing ran\.$/,
    ],
  ])('denial %#: %s', (error, expected) => {
    expect(sentence(error)).toMatch(expected);
  });

  it('a denial of a key whose earlier call ran says so, never "nothing ran"', () => {
    const ran = Object.assign(
      new PermissionDeniedError('append', 'fx', 'DENY', undefined, 'rule "no writes"', { by: 'rule', ruleId: 'r1' }),
      { keyRecorded: 'completed' as const },
    );
    expect(sentence(ran)).toMatch(
      /\(rule "no writes"\), so this call did not run again \(an earlier call with the same callId ran; its result is recorded in MiniHarness\)\./,
    );
    const started = Object.assign(new PermissionDeniedError('append', 'fx', 'ASK', 'deny', 'the user denied it'), {
      keyRecorded: 'started' as const,
    });
    expect(sentence(started)).toMatch(
      /^The user denied this call of fx__append in MiniHarness, so this call did not run again \(an earlier call with the same callId started and may have acted; its result is unknown\)\./,
    );
    expect(sentence(started)).not.toMatch(/nothing ran/);
  });

  it('in progress (another process) and a duplicate in flight (this process) read alike: wait, same callId', () => {
    const inProgress = sentence(new CheckpointInProgressError('agent:a:default', CALL, Date.now()));
    expect(inProgress).toBe(sentence(new AppError('duplicate_call', 'A call with this id is already running.')));
    expect(inProgress).toContain(`The call with callId "${CALL}" is still running, or its result is unknown`);
    expect(inProgress).toMatch(/Do not run it again under a new callId; retry later with the same callId/);
  });

  it('a callId reused for other arguments, a callId marked failed, arguments that do not fit', () => {
    expect(sentence(new CheckpointArgumentsMismatchError('s', CALL, ['arguments']))).toBe(
      `The callId "${CALL}" was already used for a call with other arguments. Use a new callId for a new call.`,
    );
    expect(sentence(new CheckpointFailedError('s', CALL))).toMatch(
      new RegExp(
        `^An earlier attempt with callId "${CALL}" failed and is recorded as failed: .* Use a new callId to try again\\.$`,
      ),
    );
    expect(
      sentence(new InvalidArgumentsError('append', 'fx', { line: ['is required'], '': ['must be an object'] })),
    ).toBe(
      'The arguments do not match the input schema of fx__append (line: is required, (arguments): must be an object). Nothing ran; fix them and call again.',
    );
  });

  it('a timeout says the result is unknown, and never sends the agent back to the same callId', () => {
    const timeout = sentence(new MCPRequestTimeout('fx', 'tools/call', 5000));
    expect(timeout).toMatch(
      /^The server did not answer fx__append in time: Server "fx" did not answer tools\/call within 5000 ms/,
    );
    expect(timeout).toMatch(
      /It may have acted, so its result is unknown: do not repeat the call under a new callId; ask the user to check MiniHarness → History\.$/,
    );
    // Its record stays `started`: the same callId would answer "still running, or unknown".
    expect(timeout).not.toMatch(/retry with the same callId/);
  });

  it('anything else carries the message; a retryable failure (nothing sent) may go again under a new callId', () => {
    expect(agentErrorText({ code: 'internal', message: 'Boom.' }, TOOL, CALL)).toBe(
      'MiniHarness could not complete fx__append: Boom.',
    );
    const unavailable = sentence(new MCPServerUnavailableError('fx', 'it is not connected.'));
    expect(unavailable).toBe(
      'MiniHarness could not complete fx__append: Server "fx" is not available: it is not connected. Nothing reached the server, so you may call it again with a new callId.',
    );
  });
});

describe('agentErrorResult', () => {
  it('is a tool result with isError, the sentence, and the code, callId and trace in _meta', () => {
    const result = agentErrorResult(
      toErrorShape(new PermissionDeniedError('append', 'fx', 'ASK', 'deny', 'no'), undefined, 'trace-1'),
      TOOL,
      CALL,
    );
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/^The user denied this call of fx__append/) }],
      _meta: { [META_ERROR]: 'permission_denied', [META_CALL_ID]: CALL, [META_TRACE_ID]: 'trace-1' },
    });
    expect(agentErrorResult({ code: 'in_progress', message: 'x' }, TOOL, CALL)._meta).toEqual({
      [META_ERROR]: 'in_progress',
      [META_CALL_ID]: CALL,
    });
  });
});
