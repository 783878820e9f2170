/**
 * Errors of the security layer: a path outside the allowed folders, a tool call that was not
 * authorized. Each says what happened and what to do. None carries file contents, tool
 * arguments or secrets — only names, paths and the reason a rule or a person gave.
 */
import type { Denial } from '../../shared/errors.js';
import { CodedError } from '../util/codedError.js';
import type { PermissionLevel } from './permissions.js';

export type SecurityErrorCode =
  | 'path_outside_roots'
  | 'no_roots'
  | 'invalid_path'
  | 'path_not_found'
  | 'permission_denied'
  | 'approval_cancelled'
  | 'rules_file_corrupt'
  | 'path_excluded'
  | 'path_changed'
  | 'hard_linked_file'
  | 'parent_missing';

export abstract class SecurityError extends CodedError<SecurityErrorCode> {}

/** The folder a file should be written in does not exist (and `createDirs` was not given): boundFs.ts. */
export class ParentFolderMissingError extends SecurityError {
  readonly code = 'parent_missing';
  constructor(readonly requested: string) {
    super(`The folder for "${requested}" does not exist. Create it first, or pass createDirs: true.`);
  }
}

function listRoots(roots: readonly string[]): string {
  return roots.map((r) => `"${r}"`).join(', ');
}

/** The path resolves (after following symlinks) to a place outside every allowed folder. */
export class PathOutsideRootsError extends SecurityError {
  readonly code = 'path_outside_roots';
  constructor(
    readonly requested: string,
    readonly roots: readonly string[],
  ) {
    super(
      `The path "${requested}" is outside the folders this app may use (${listRoots(roots)}). ` +
        'Use a path inside one of them, or add its folder in Settings → Folders.',
    );
  }
}

/** No allowed folder is configured, or none of the configured ones exists. */
export class NoAllowedRootsError extends SecurityError {
  readonly code = 'no_roots';
  constructor(readonly roots: readonly string[]) {
    super(
      roots.length === 0
        ? 'No folders are configured for file access. Add one in Settings → Folders.'
        : `None of the folders configured for file access exists (${listRoots(roots)}). Create one, or fix them in Settings → Folders.`,
    );
  }
}

export class InvalidPathError extends SecurityError {
  readonly code = 'invalid_path';
  constructor(
    readonly requested: string,
    detail: string,
  ) {
    // A NUL byte would make the quoted path unreadable in logs; show it escaped.
    super(`The path "${requested.replaceAll('\0', '\\0')}" cannot be used: ${detail}`);
  }
}

export class PathNotFoundError extends SecurityError {
  readonly code = 'path_not_found';
  constructor(readonly requested: string) {
    super(`The path "${requested}" does not exist. Check the name, or list the folder first.`);
  }
}

/** How a denied call was decided: by a rule or default (no answer), or by the approval step. */
export type DenialAnswer = 'deny' | 'timeout' | 'cancelled' | 'error';

/** A tool call was not authorized; nothing was executed. */
export class PermissionDeniedError extends SecurityError {
  readonly code: 'permission_denied' | 'approval_cancelled' = 'permission_denied';
  constructor(
    readonly toolName: string,
    readonly serverId: string,
    /** The decision level: DENY (a rule, default or guardrail refused) or ASK (approval did not allow it). */
    readonly level: PermissionLevel,
    /** What the approval step produced; undefined when nobody was asked. */
    readonly answer: DenialAnswer | undefined,
    readonly reason: string,
    /** Who refused when nobody was asked: a rule (which one), the default policy, or a guardrail. */
    readonly decidedBy: { by: 'rule' | 'default' | 'guardrail'; ruleId?: string } = { by: 'default' },
    /** How long the approval waited, when it timed out. */
    readonly timeoutMs?: number,
  ) {
    super(`The call to "${toolName}" on "${serverId}" was not allowed: ${reason}`);
  }

  /** Set by the pipeline when an earlier call with the same key is recorded (see Denial.keyRecorded). */
  keyRecorded?: 'completed' | 'started';

  /** The typed form of the refusal, for the contract: the GUI words it from this, not from the message. */
  get denial(): Denial {
    const by: Denial['by'] =
      this.answer === undefined
        ? this.decidedBy.by
        : ({ deny: 'person', timeout: 'approval_timeout', error: 'approval_error', cancelled: 'cancelled' } as const)[
            this.answer
          ];
    return {
      by,
      toolName: this.toolName,
      serverId: this.serverId,
      level: this.level,
      reason: this.reason,
      ...(by === 'rule' && this.decidedBy.ruleId ? { ruleId: this.decidedBy.ruleId } : {}),
      ...(this.timeoutMs !== undefined ? { timeoutMs: this.timeoutMs } : {}),
      ...(this.keyRecorded ? { keyRecorded: this.keyRecorded } : {}),
    };
  }

  override toJSON(): ReturnType<SecurityError['toJSON']> & {
    toolName: string;
    serverId: string;
    level: PermissionLevel;
    answer?: DenialAnswer;
    reason: string;
  } {
    return {
      ...super.toJSON(),
      toolName: this.toolName,
      serverId: this.serverId,
      level: this.level,
      ...(this.answer ? { answer: this.answer } : {}),
      reason: this.reason,
    };
  }
}

/** The caller cancelled (its AbortSignal fired) while the call was being authorized. */
export class ApprovalCancelledError extends PermissionDeniedError {
  override readonly code = 'approval_cancelled';
  /** `why`: the app's own reason when it ended the wait (waitEnded.ts: the agent revoked, the server removed), else the caller cancelled. */
  constructor(toolName: string, serverId: string, level: PermissionLevel, why: string = CANCELLED_BY_CALLER) {
    super(toolName, serverId, level, 'cancelled', why);
  }
}

/** The denial reason of an approval the caller itself cancelled. */
export const CANCELLED_BY_CALLER = 'the request was cancelled before it was approved';

/** The permission rules file could not be used; it was moved aside and no rules are in effect. */
export class PermissionRulesCorruptError extends SecurityError {
  readonly code = 'rules_file_corrupt';
  constructor(
    readonly file: string,
    readonly movedTo: string | undefined,
    detail: string,
  ) {
    super(
      `The permission rules file "${file}" is not valid (${detail}). ` +
        (movedTo
          ? `It was moved to "${movedTo}" and no saved rules are in effect; fix that file and move it back, or add the rules again.`
          : 'It could not be moved aside; no saved rules are in effect until it is fixed or deleted.'),
    );
  }
}

/** The path lies inside a folder no tool may use (the app's own data), even though a root contains it. */
export class PathExcludedError extends SecurityError {
  readonly code = 'path_excluded';
  constructor(readonly requested: string) {
    super(
      `The path "${requested}" is inside a folder the app keeps for itself; no tool may read, list or write it. Use another path.`,
    );
  }
}

/**
 * Why an opened file or folder was not the one that was checked:
 * `outside_roots` — the open followed a folder swapped for a symlink and landed outside the
 * allowed folders; `excluded` — it landed in a protected folder; `moved` — it is inside but
 * no longer at the checked path (renamed, replaced or deleted meanwhile).
 */
export type PathChangeReason = 'outside_roots' | 'excluded' | 'moved';

/** The path changed between its check and its use; nothing was read, listed or written through it. */
export class PathChangedError extends SecurityError {
  readonly code = 'path_changed';
  constructor(
    readonly requested: string,
    readonly reason: PathChangeReason,
  ) {
    super(
      `"${requested}" changed while it was being opened (a folder on the way was moved or replaced by a symlink); ` +
        'nothing was read or written through it. Try again once the folder is stable.',
    );
  }

  override toJSON(): ReturnType<SecurityError['toJSON']> & { reason: PathChangeReason } {
    return { ...super.toJSON(), reason: this.reason };
  }
}

/**
 * A regular file with more than one hard link. Another link may sit outside the allowed
 * folders, and finding every link of a file would mean searching whole disks, so such a file
 * is neither read nor replaced.
 */
export class HardLinkedFileError extends SecurityError {
  readonly code = 'hard_linked_file';
  constructor(
    readonly requested: string,
    readonly links: number,
  ) {
    super(
      `"${requested}" has ${links} hard links. Another link may be outside the allowed folders, so the file tools ` +
        'neither read nor replace it. Use a copy of the file instead of a hard link.',
    );
  }

  override toJSON(): ReturnType<SecurityError['toJSON']> & { links: number } {
    return { ...super.toJSON(), links: this.links };
  }
}
