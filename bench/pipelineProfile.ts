/**
 * `bench:pipeline -- --profile`: where the pipeline's own time goes, from V8's sampling profiler
 * of THIS process (an in-process inspector Session: the pipeline runs here, the server in a child
 * process), started and stopped around a window of calls so set-up and warm-up are not in it.
 *
 * Each sample is charged by its leaf frame: a project file (electron/, shared/) keeps its own
 * self time (its line mapped back to the TypeScript source); better-sqlite3's native methods
 * (nameless native frames: a statement's run/get/all, a commit) and its JS wrapper count as
 * SQLite; other native frames go to the nearest caller with a script (V8 does not always give a
 * native call a frame of its own: part of a statement's time can show as its caller's self time,
 * which is why the list by nearest project frame is printed too). The summary gives per-call
 * figures (µs of busy time per call) so runs of different lengths compare. The sampler counts
 * wall time: on a loaded machine, time the thread waits for a core inflates every entry alike
 * (compare shares, and runs made under the same load).
 */
import { Session } from 'node:inspector/promises';
import { findSourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../test/helpers/fixtures.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Runs `work` under the sampling profiler (interval in µs) and returns the profile. */
export async function profileWhile(work: () => Promise<void>, intervalUs = 50): Promise<CpuProfile> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await session.post('Profiler.start');
    let failure: { error: unknown } | undefined;
    try {
      await work();
    } catch (error) {
      failure = { error };
    }
    const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
    await session.post('Profiler.disable');
    if (failure) throw failure.error;
    return profile;
  } finally {
    session.disconnect();
  }
}

export interface ProfileSummary {
  calls: number;
  wallMs: number;
  idleMs: number;
  /** Busy time by kind (ms), largest first: SQLite, project files, SDK, zod, Node, GC, … */
  kinds: Array<[string, number]>;
  /** Project-file functions by self time (ms), largest first. */
  top: Array<[string, number]>;
  /**
   * Project-file functions by the time charged to the nearest one on the stack: their own, and
   * that of the libraries, SQLite and native code they called (ms), largest first.
   */
  owners: Array<[string, number]>;
}

const projectRoot = PROJECT_ROOT.endsWith('/') ? PROJECT_ROOT : `${PROJECT_ROOT}/`;

function pathOf(url: string): string {
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url);
    } catch {
      return url;
    }
  }
  return url;
}

/** The line in the TypeScript source (tsx compiles with source maps), else the compiled one. */
function sourceLine(frame: CallFrame): number {
  try {
    const entry = findSourceMap(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
    if (entry && 'originalLine' in entry) return entry.originalLine + 1;
  } catch {
    // no source map: the compiled line
  }
  return frame.lineNumber + 1;
}

function isProjectFile(path: string): boolean {
  return path.startsWith(projectRoot) && !path.includes('/node_modules/');
}

function kindOf(path: string): string {
  if (path.includes('/better-sqlite3/')) return 'SQLite (better-sqlite3: statements, transactions, commits)';
  if (isProjectFile(path)) {
    const rel = path.slice(projectRoot.length);
    const area = /^(electron\/[^/]+|shared|bench|test)/.exec(rel)?.[1] ?? rel;
    return `project: ${area}`;
  }
  if (path.includes('/@modelcontextprotocol/')) return 'MCP SDK (client, protocol, stdio framing)';
  if (path.includes('/zod/')) return 'zod';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  if (pkg) return `package: ${pkg}`;
  if (path.startsWith('node:')) return 'Node internals (streams, pipes, timers, promises)';
  return `other: ${path || '(native)'}`;
}

export function summarize(profile: CpuProfile, calls: number, topCount = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  /** The frame a sample is charged to (a node with a script), and whether SQLite is on its stack. */
  const charged = new Map<number, { frame: ProfileNode | undefined; sqlite: boolean }>();
  const chargeOf = (id: number): { frame: ProfileNode | undefined; sqlite: boolean } => {
    const known = charged.get(id);
    if (known) return known;
    let frame: ProfileNode | undefined;
    let sqlite = false;
    // Walk up while the frame has no script (native) or is better-sqlite3's wrapper.
    for (let n = byId.get(id); n; n = parent.has(n.id) ? byId.get(parent.get(n.id)!) : undefined) {
      const path = pathOf(n.callFrame.url);
      if (path.includes('/better-sqlite3/')) {
        sqlite = true;
        continue;
      }
      if (path === '') continue;
      frame = n;
      break;
    }
    const out = { frame, sqlite };
    charged.set(id, out);
    return out;
  };

  /** The nearest project frame on a sample's stack (itself included). */
  const owner = new Map<number, ProfileNode | undefined>();
  const ownerOf = (id: number): ProfileNode | undefined => {
    if (owner.has(id)) return owner.get(id);
    let found: ProfileNode | undefined;
    for (let n = byId.get(id); n; n = parent.has(n.id) ? byId.get(parent.get(n.id)!) : undefined) {
      if (isProjectFile(pathOf(n.callFrame.url)) && !pathOf(n.callFrame.url).startsWith(`${projectRoot}bench/`)) {
        found = n;
        break;
      }
    }
    owner.set(id, found);
    return found;
  };
  const label = (frame: ProfileNode) =>
    `${frame.callFrame.functionName || '(anonymous)'}  ${pathOf(frame.callFrame.url).slice(projectRoot.length)}:${sourceLine(frame.callFrame)}`;

  const kinds = new Map<string, number>();
  const top = new Map<string, number>();
  const owners = new Map<string, number>();
  let idleMs = 0;
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const leaf = byId.get(profile.samples[i]!)!;
    const name = leaf.callFrame.functionName;
    if (name === '(idle)') {
      idleMs += ms;
      continue;
    }
    if (name === '(garbage collector)') {
      add(kinds, 'GC', ms);
      continue;
    }
    if (name === '(program)' || name === '(root)') {
      add(kinds, 'V8 / native, no JS frame ((program))', ms);
      continue;
    }
    const projectFrame = ownerOf(leaf.id);
    if (projectFrame) add(owners, label(projectFrame), ms);
    const { frame, sqlite } = chargeOf(leaf.id);
    // better-sqlite3's native methods (a statement's run/get/all, the commit) are the only
    // nameless native frames here (Node's own bindings have names); its JS wrapper is SQLite too.
    const leafPath = pathOf(leaf.callFrame.url);
    if ((leafPath === '' && name === '') || (sqlite && leafPath === '') || leafPath.includes('/better-sqlite3/')) {
      add(kinds, 'SQLite (better-sqlite3: statements, transactions, commits)', ms);
      continue;
    }
    const path = frame ? pathOf(frame.callFrame.url) : '';
    add(kinds, frame ? kindOf(path) : 'native, no script', ms);
    if (frame && isProjectFile(path)) add(top, label(frame), ms);
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return {
    calls,
    wallMs: (profile.endTime - profile.startTime) / 1000,
    idleMs,
    kinds: sorted(kinds),
    top: sorted(top).slice(0, topCount),
    owners: sorted(owners).slice(0, topCount),
  };
}

/** The summary as lines: busy time by kind, then the project's top functions, in µs per call. */
function cut(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text.padEnd(60);
}

/**
 * `baseline`: the same section's summary from an earlier run (BENCH_PROFILE_BASELINE): each row
 * then reads "before → after" (µs per call; "–" where the earlier run had no such row).
 */
export function formatSummary(title: string, summary: ProfileSummary, baseline?: ProfileSummary): string[] {
  const perCall = (ms: number, calls = summary.calls) => ((ms / calls) * 1000).toFixed(1).padStart(7);
  const busyOf = (s: ProfileSummary) => s.kinds.reduce((a, [, ms]) => a + ms, 0);
  const busy = busyOf(summary);
  const project = summary.kinds.filter(([k]) => k.startsWith('project:')).reduce((a, [, ms]) => a + ms, 0);
  const value = (rows: ProfileSummary['kinds'] | undefined, key: string, ms: number): string => {
    if (!baseline) return perCall(ms);
    const before = rows?.find(([k]) => k === key)?.[1];
    return `${before === undefined ? '      –' : perCall(before, baseline.calls)} → ${perCall(ms).trim()}`;
  };
  const unit = baseline ? 'µs/call (before → after)' : 'µs/call';
  const lines = [
    `${title}: ${summary.calls} calls, wall ${summary.wallMs.toFixed(0)} ms, busy ${busy.toFixed(0)} ms = ${perCall(busy).trim()} µs/call (project files ${perCall(project).trim()} µs/call), idle ${summary.idleMs.toFixed(0)} ms` +
      (baseline ? `; before: busy ${perCall(busyOf(baseline), baseline.calls).trim()} µs/call` : ''),
    `  busy time by kind                                              ${unit}`,
    ...summary.kinds.map(([kind, ms]) => `    ${kind.padEnd(60)} ${value(baseline?.kinds, kind, ms)}`),
    `  top self time, project files                                   ${unit}`,
    ...summary.top.map(([fn, ms]) => `    ${cut(fn)} ${value(baseline?.top, fn, ms)}`),
    '  top by nearest project frame (its own time + libraries, SQLite, native it called)',
    ...summary.owners.map(([fn, ms]) => `    ${cut(fn)} ${value(baseline?.owners, fn, ms)}`),
  ];
  return lines;
}
