/**
 * CPU time used by processes, from /proc (Linux): what a benchmark's processes really spent per
 * call, whatever the machine's load — wall-clock figures on a shared, busy machine mostly measure
 * waiting for a CPU. Elsewhere every reading is undefined and the benchmark prints "–".
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [state, ppid, …]. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Whether this kernel keeps threads' on-CPU time (schedstat): then every reading is taken from it, never mixed with stat's. */
const SCHEDSTAT = existsSync('/proc/self/schedstat');

/**
 * CPU time of one process so far (ms), or undefined when it cannot be read. Where the kernel keeps it,
 * its live threads' on-CPU time from the scheduler (`/proc/<pid>/task/<tid>/schedstat`, nanoseconds):
 * the user + system ticks of `/proc/<pid>/stat` count in 10 ms steps, ±3 % of a 300 ms round of calls.
 * A thread that ended during a measurement takes its time with it (the processes measured — Node hosts,
 * servers — keep their threads); elsewhere `stat`'s ticks.
 */
export function processCpuMs(pid: number): number | undefined {
  if (SCHEDSTAT) return threadsOnCpuMs(pid);
  const fields = statFields(pid);
  if (!fields) return undefined;
  // stat fields 14 and 15 (utime, stime), in clock ticks; here at index 11 and 12.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
}

/** The summed on-CPU time of `pid`'s threads (ms), or undefined when the process is gone. */
function threadsOnCpuMs(pid: number): number | undefined {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let ns = 0;
  for (const tid of threads) {
    try {
      const line = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
      ns += Number(line.slice(0, line.indexOf(' ')));
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1e6;
}

/**
 * Every process below `pid` (children, theirs, …): a server started in a sandbox is the grandchild of
 * the process that started it (bubblewrap between), a server a peer starts through a shell likewise.
 */
export function descendantPids(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const children = new Map<string, number[]>();
  for (const entry of entries) {
    const parent = statFields(Number(entry))?.[1];
    if (parent === undefined) continue;
    const siblings = children.get(parent);
    if (siblings) siblings.push(Number(entry));
    else children.set(parent, [Number(entry)]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0;) {
    const next = children.get(String(queue.pop()!)) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/** CPU used by named groups of processes (and this one, as `self`) over a stretch of work. */
export class CpuMeter {
  constructor(private readonly groups: Record<string, number[]>) {}

  snapshot(): Record<string, number | undefined> {
    const own = process.cpuUsage();
    const out: Record<string, number | undefined> = { self: (own.user + own.system) / 1000 };
    for (const [name, pids] of Object.entries(this.groups)) {
      const each = pids.map(processCpuMs);
      out[name] =
        pids.length === 0 || each.some((ms) => ms === undefined)
          ? undefined
          : each.reduce((sum: number, ms) => sum + (ms ?? 0), 0);
    }
    return out;
  }

  /** Runs `work` and returns each process's CPU ms over it. */
  async measure(work: () => Promise<void>): Promise<Record<string, number | undefined>> {
    const before = this.snapshot();
    await work();
    const after = this.snapshot();
    const spent: Record<string, number | undefined> = {};
    for (const name of Object.keys(after)) {
      const a = after[name];
      const b = before[name];
      spent[name] = a === undefined || b === undefined ? undefined : a - b;
    }
    return spent;
  }
}

/** A process's write system calls and bytes written so far, all threads (/proc/<pid>/io), or undefined. */
export function processWrites(pid: number): { syscalls: number; bytes: number } | undefined {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1]);
    return { syscalls: field('syscw'), bytes: field('wchar') };
  } catch {
    return undefined;
  }
}
