/**
 * Errors of the harness's own checks, before a call reaches a tool: arguments that do not fit the
 * tool's schema or are too large to send, and a replay of a record that has no result. Nothing
 * ran when one of these is thrown.
 */
import { formatBytes } from '../../shared/limits.js';
import { CodedError } from '../util/codedError.js';
import type { ArgumentFieldErrors } from './toolArguments.js';
import { describeArgumentErrors } from './toolArguments.js';

export type HarnessErrorCode = 'invalid_arguments' | 'request_too_large' | 'not_replayable';

abstract class HarnessError extends CodedError<HarnessErrorCode> {}

/**
 * The arguments do not match the tool's input schema: refused before the permission decision and
 * any approval, so nobody approves a call that the server would reject. `fieldErrors` is keyed
 * by field path, for the form.
 */
export class InvalidArgumentsError extends HarnessError {
  readonly code = 'invalid_arguments';
  constructor(
    readonly toolName: string,
    readonly serverId: string,
    readonly fieldErrors: ArgumentFieldErrors,
  ) {
    super(
      `The arguments for ${toolName} do not match its input schema: ${describeArgumentErrors(fieldErrors)}. Nothing ran.`,
    );
  }
}

/** The arguments are larger than the server can take (argumentSize.ts): nothing was sent. */
export class ArgumentsTooLargeError extends HarnessError {
  readonly code = 'request_too_large';
  readonly details: { serverId: string; limitBytes: number; sizeBytes: number; fieldErrors: Record<string, string[]> };
  constructor(toolName: string, serverId: string, limitBytes: number, sizeBytes: number, why: string) {
    super(
      `The arguments of ${toolName} are ${formatBytes(sizeBytes)} as JSON; ${why} at most ${formatBytes(limitBytes)}. Nothing was sent.`,
    );
    this.details = {
      serverId,
      limitBytes,
      sizeBytes,
      fieldErrors: { args: [`${formatBytes(sizeBytes)} is over the limit of ${formatBytes(limitBytes)}`] },
    };
  }
}

/** A record that cannot be replayed (not completed, or absent). */
export class NotReplayableError extends HarnessError {
  readonly code = 'not_replayable';
}
