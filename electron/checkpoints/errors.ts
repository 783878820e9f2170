/**
 * Errors of the checkpoint store. Each says which call it concerns (session and callId — ids,
 * never arguments or results) and what the caller or the user can do about it.
 */
import { isDiskFull } from '../storage/errors.js';
import { CodedError } from '../util/codedError.js';
import type { CheckpointStatus } from './types.js';

export type CheckpointErrorCode =
  | 'arguments_mismatch'
  | 'in_progress'
  | 'failed'
  | 'lease_lost'
  | 'result_not_recorded'
  | 'not_found'
  | 'not_resolvable'
  | 'invalid_result';

abstract class CheckpointStoreError extends CodedError<CheckpointErrorCode> {
  constructor(
    message: string,
    readonly sessionId: string,
    readonly callId: string,
  ) {
    super(message);
  }

  override toJSON(): { name: string; code: CheckpointErrorCode; message: string; sessionId: string; callId: string } {
    return { ...super.toJSON(), sessionId: this.sessionId, callId: this.callId };
  }
}

const call = (sessionId: string, callId: string): string => `Tool call "${callId}" in session "${sessionId}"`;

/** What differs between the recorded call and the new one. */
export type MismatchField = 'arguments' | 'tool' | 'server' | 'user';

/** The callId was used for another call. Never replayed: the stored result answers another question. */
export class CheckpointArgumentsMismatchError extends CheckpointStoreError {
  readonly code = 'arguments_mismatch';
  constructor(
    sessionId: string,
    callId: string,
    readonly mismatched: MismatchField[],
  ) {
    super(
      `${call(sessionId, callId)} was already recorded with a different ${mismatched.join(', ')}. ` +
        'A callId names exactly one call and is never replayed for another; use a new callId for a new call.',
      sessionId,
      callId,
    );
  }
}

/** A `started` record: another owner is running it, or an earlier owner stopped without a result. */
export class CheckpointInProgressError extends CheckpointStoreError {
  readonly code = 'in_progress';
  constructor(
    sessionId: string,
    callId: string,
    readonly startedAt: number,
    /** Its owner's lease expired (the owner stopped renewing it: it died or lost the database): nothing will complete it now. */
    readonly ownerGone = false,
  ) {
    super(
      `${call(sessionId, callId)} is in progress or its result is unknown: it was started at ${new Date(startedAt).toISOString()} ` +
        'and has no recorded result, so it may already have run on the server. ' +
        (ownerGone
          ? 'Its owner stopped (its lease expired), so nothing will finish it: check the server and resolve it by hand in History (completed or failed).'
          : 'Wait for it to finish; if it was interrupted, check the server and resolve it by hand in History (completed or failed).'),
      sessionId,
      callId,
    );
  }

  override toJSON(): ReturnType<CheckpointStoreError['toJSON']> & { ownerGone: boolean } {
    return { ...super.toJSON(), ownerGone: this.ownerGone };
  }
}

/** Failed (resolved by hand, or refused by its server before it ran): the callId is spent. */
export class CheckpointFailedError extends CheckpointStoreError {
  readonly code = 'failed';
  constructor(sessionId: string, callId: string) {
    super(
      `${call(sessionId, callId)} failed (marked so in History, or refused by its server before it ran), so it will not run or replay. Use a new callId to try again.`,
      sessionId,
      callId,
    );
  }
}

/** The completer no longer owns the record: it is not `started` any more, or another lease holds it. */
export class CheckpointLeaseLostError extends CheckpointStoreError {
  readonly code = 'lease_lost';
  constructor(
    sessionId: string,
    callId: string,
    readonly operation: 'complete' | 'recordFailure',
    reason: string,
  ) {
    super(
      `${call(sessionId, callId)}: ${operation} was refused because this caller no longer owns the call (${reason}). ` +
        'Nothing was saved; see History for how the call ended.',
      sessionId,
      callId,
    );
  }
}

/**
 * The tool ran — it may have acted — but its result could not be stored (the disk holding the
 * database is full, or the write failed). Never "could not complete": a caller told that would
 * try again under a new callId and run it twice. The record stays `started` ("result unknown" in
 * History, where a person resolves it), so the same callId answers "in progress or unknown".
 */
export class ResultNotRecordedError extends CheckpointStoreError {
  readonly code = 'result_not_recorded';
  readonly diskFull: boolean;
  constructor(sessionId: string, callId: string, cause: unknown) {
    const diskFull = isDiskFull(cause);
    super(
      `${call(sessionId, callId)} ran and may have acted, but its result could not be recorded (${
        diskFull
          ? 'the disk holding the database is full'
          : `the database refused the write: ${cause instanceof Error ? cause.message : String(cause)}`
      }). Its result is unknown: do not run it again under a new callId; check what it did, then resolve it in History.`,
      sessionId,
      callId,
    );
    this.diskFull = diskFull;
  }
}

export class CheckpointNotFoundError extends CheckpointStoreError {
  readonly code = 'not_found';
  constructor(sessionId: string, callId: string) {
    super(
      `${call(sessionId, callId)} has no checkpoint. It may belong to another session; refresh History.`,
      sessionId,
      callId,
    );
  }
}

/** Manual resolution is only for `started` records. */
export class CheckpointNotResolvableError extends CheckpointStoreError {
  readonly code = 'not_resolvable';
  constructor(
    sessionId: string,
    callId: string,
    readonly status: CheckpointStatus,
  ) {
    super(
      `${call(sessionId, callId)} is already ${status}; only a call that is in progress or whose result is unknown can be resolved by hand.`,
      sessionId,
      callId,
    );
  }
}

/** The result to store is not a tool result that can be saved as JSON and replayed. */
export class CheckpointInvalidResultError extends CheckpointStoreError {
  readonly code = 'invalid_result';
  constructor(sessionId: string, callId: string, detail: string) {
    super(
      `${call(sessionId, callId)}: the result cannot be saved for replay (${detail}). Nothing was saved.`,
      sessionId,
      callId,
    );
  }
}
