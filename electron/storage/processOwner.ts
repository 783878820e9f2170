/**
 * Who owns a piece of work in the shared database, well enough to tell later whether that owner
 * is gone: the machine (host name and, on Linux, boot id), the pid, and the process's start
 * time (Linux: field 22 of /proc/<pid>/stat), so a pid reused by another process is not
 * mistaken for the owner.
 *
 * Several processes may share one database (an Electron window and a browser-mode host on the
 * same data folder), so a process may only close work whose owner is provably dead. The answer
 * errs on the side of "alive": an owner on another machine or container (host name differs),
 * or one whose start time cannot be read (macOS, Windows) but whose pid exists, counts as alive
 * — its work then stays open a while longer, and nothing live is ever closed.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface ProcessOwner {
  host: string;
  /** Changes at every boot (Linux); absent where the OS does not say. */
  boot?: string;
  pid: number;
  /** When the process started, in the OS's own units (Linux: clock ticks since boot). */
  start?: string;
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function bootId(): string | undefined {
  return readProc('/proc/sys/kernel/random/boot_id')?.trim() || undefined;
}

/**
 * Fields 3 (state) and 22 (starttime) of /proc/<pid>/stat, where there is one. The command name
 * (field 2) may hold spaces and parentheses, so fields are counted from its closing parenthesis.
 */
function procStat(pid: number): { state: string; start: string | undefined } | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = fields[19];
  return { state: fields[0] ?? '', start: start && /^\d+$/.test(start) ? start : undefined };
}

export function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.start;
}

let current: ProcessOwner | undefined;

/** This process, as it is recorded as an owner. */
export function currentProcessOwner(): ProcessOwner {
  if (!current) {
    const boot = bootId();
    const start = processStartTime(process.pid);
    current = { host: hostname(), ...(boot ? { boot } : {}), pid: process.pid, ...(start ? { start } : {}) };
  }
  return current;
}

export function encodeOwner(owner: ProcessOwner): string {
  return JSON.stringify(owner);
}

/** The stored owner, or undefined when the column is empty (written before owners were kept) or unreadable. */
export function decodeOwner(text: string | null | undefined): ProcessOwner | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<ProcessOwner>;
    if (
      typeof value.host !== 'string' ||
      typeof value.pid !== 'number' ||
      !Number.isInteger(value.pid) ||
      value.pid <= 0
    )
      return undefined;
    return {
      host: value.host,
      ...(typeof value.boot === 'string' ? { boot: value.boot } : {}),
      pid: value.pid,
      ...(typeof value.start === 'string' ? { start: value.start } : {}),
    };
  } catch {
    return undefined;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

export type OwnerState = 'alive' | 'dead' | 'unknown';

/**
 * Whether `owner` is still running, as seen from `self` (this process by default). 'unknown'
 * when it cannot be told from here (another machine or container); callers treat that as alive.
 */
export function ownerState(owner: ProcessOwner, self: ProcessOwner = currentProcessOwner()): OwnerState {
  if (owner.host !== self.host) return 'unknown';
  if (owner.boot && self.boot && owner.boot !== self.boot) return 'dead'; // the machine restarted since
  if (owner.pid === self.pid) {
    if (owner.start === undefined || self.start === undefined) return 'alive';
    return owner.start === self.start ? 'alive' : 'dead';
  }
  if (!pidExists(owner.pid)) return 'dead';
  const stat = procStat(owner.pid);
  // A zombie has exited; only its parent has not collected it yet.
  if (stat && (stat.state === 'Z' || stat.state === 'X')) return 'dead';
  if (owner.start === undefined || stat?.start === undefined) return 'alive';
  return stat.start === owner.start ? 'alive' : 'dead'; // the pid now names another process
}
