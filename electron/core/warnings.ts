/**
 * The warnings the GUI shows (`app.info`, `app.warnings`): damaged files moved aside, and
 * notices. A damaged file met while the core is built (database, secrets, rules) is pushed to
 * the listeners once `start()` runs; one met later, at once. Notices are read with the list.
 * A notice often quotes a server's or a library's error text: it is redacted as it is added, so a
 * known secret in it never reaches `app.info` (a response, not an event the hub redacts).
 */
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AppWarning, FileDamagedWarning } from '../../shared/contract.js';
import { isDiskFull } from '../storage/errors.js';
import type { GroupCommit } from '../storage/groupCommit.js';
import type { EventHub } from './eventHub.js';

/** Free space on the database's disk from which the `disk_full` warning goes (a write succeeded too). */
const DISK_ROOM_BYTES = 16 * 1024 * 1024;

/** Bytes an unprivileged process may still write where `dir` is (Infinity when it cannot be told). */
function freeBytesAt(dir: string): number {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return Infinity;
  }
}

export class AppWarnings {
  private readonly damaged: FileDamagedWarning[];
  private readonly notices: string[];
  private started = false;
  private damagedWhileBuilding = false;
  /** The database file whose disk is full, while a write to it last failed so. */
  private diskFull: string | undefined;

  constructor(
    private readonly hub: EventHub,
    damaged: readonly FileDamagedWarning[],
    notices: readonly string[],
    private readonly redactText: (text: string) => string,
  ) {
    this.damaged = [...damaged];
    this.notices = [...notices];
  }

  readonly notice = (message: string): void => {
    this.notices.push(this.redactText(message));
  };

  /** A damaged file found before anyone could listen (the database, opened first): listed, not pushed. */
  damagedBeforeBuild(warning: FileDamagedWarning): void {
    this.damaged.push(warning);
  }

  /** A damaged file moved aside: pushed now, or when `start()` runs. */
  readonly damagedFile = (warning: FileDamagedWarning): void => {
    this.damaged.push(warning);
    if (this.started) this.publish();
    else this.damagedWhileBuilding = true;
  };

  readonly list = (): AppWarning[] => [
    ...(this.diskFull !== undefined ? [{ code: 'disk_full' as const, file: this.diskFull }] : []),
    ...this.damaged,
    ...this.notices.map((message): AppWarning => ({ code: 'notice', message })),
  ];

  /**
   * Follows the database's writes (its group commit, which every write of a tool call goes
   * through): a write refused because the disk is full raises the `disk_full` warning, pushed at
   * once. Small writes may still fit on a disk that is all but full, so a commit clears it only
   * once the disk has room again (`freeBytes` of the database's folder, at least DISK_ROOM_BYTES).
   */
  watchStorage(commits: GroupCommit, file: string, freeBytes: () => number = () => freeBytesAt(dirname(file))): void {
    const set = (full: string | undefined): void => {
      if (full === this.diskFull) return;
      this.diskFull = full;
      if (this.started) this.publish();
    };
    commits.onCommit(() => {
      if (this.diskFull !== undefined && freeBytes() >= DISK_ROOM_BYTES) set(undefined);
    });
    commits.onFailure((error) => {
      if (isDiskFull(error)) set(file);
    });
  }

  /** Sends the whole list to the listeners. */
  publish(): void {
    this.hub.emit('app.warnings', { warnings: this.list() });
  }

  /** The core started: a host may have asked for app.info before, so its listeners hear what was found while building. */
  start(): void {
    this.started = true;
    if (this.damagedWhileBuilding) this.publish();
  }
}
