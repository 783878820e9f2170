/**
 * Where the app's time goes while it serves agent calls (bench/gateway.ts, BENCH_PROFILE=1): the
 * V8 sampling profiler of the host process, started and stopped over the inspector protocol
 * (the host runs with `--inspect=0`) around a window of calls, so start-up and set-up are not in
 * it. Each sample's time goes to a category by the script it ran in; native code (SQLite
 * statements, JSON, crypto) and better-sqlite3's wrapper count for the code that called them.
 */
import WebSocket from 'ws';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
export class InspectorClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id === undefined) return;
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result);
    });
  }

  /** Reads the inspector's address from what the process printed ("Debugger listening on ws://…"). */
  static async connect(output: string): Promise<InspectorClient> {
    const url = /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
    if (!url) throw new Error('the host printed no inspector address (was it started with --inspect=0?)');
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new InspectorClient(ws);
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Profiles the host while `run` runs. */
  async profile(run: () => Promise<void>, intervalUs = 100): Promise<CpuProfile> {
    await this.send('Profiler.enable');
    await this.send('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.send('Profiler.start');
    await run();
    const { profile } = await this.send<{ profile: CpuProfile }>('Profiler.stop');
    await this.send('Profiler.disable');
    return profile;
  }

  close(): void {
    this.ws.close();
  }
}

/** First match wins; tested against the script URL. */
export const CATEGORIES: Array<[RegExp, string]> = [
  [/\/@hono\/node-server\//, 'Node req/res ↔ Web Request/Response (@hono/node-server, in the SDK transport)'],
  [/\/@modelcontextprotocol\/sdk\/dist\/esm\/server\//, 'SDK server side (Streamable HTTP transport, Server)'],
  [/\/@modelcontextprotocol\/sdk\/dist\/esm\/client\//, 'SDK client side (registry → server-everything)'],
  [/\/@modelcontextprotocol\/sdk\/dist\/esm\/shared\/stdio/, 'SDK stdio framing (to server-everything)'],
  [/\/@modelcontextprotocol\/sdk\/dist\/esm\/shared\//, 'SDK protocol (JSON-RPC dispatch, both sides)'],
  [/\/zod\//, 'zod (SDK message schemas, contract events)'],
  [/\/electron\/gateway\//, 'gateway (routing, auth, session, result)'],
  [/\/electron\/checkpoints\//, 'checkpoints (SQLite claim + complete)'],
  [/\/electron\/tracing\//, 'traces (SQLite writes, redaction)'],
  [/\/electron\/(security|harness)\//, 'pipeline (decision, arguments, attempts)'],
  [/\/electron\/mcp\//, 'registry and MCP client wrapper'],
  [/\/electron\/|\/shared\//, 'app core (call service, events, agents view)'],
  [/^node:internal\/(webstreams|deps\/undici)/, 'Web Streams + undici Response (the SSE body)'],
  [
    /^node:(_http_|net|stream|internal\/streams|internal\/stream_base|internal\/http)/,
    'Node HTTP server, sockets, streams',
  ],
  [/^node:(child_process|internal\/child_process)/, 'pipes to the server process'],
  [/^node:internal\/(process\/task_queues|timers|async_hooks)/, 'event loop plumbing (microtasks, timers)'],
  [/^node:/, 'Node internals (other)'],
];

/** Scripts whose time belongs to their caller: native code, and better-sqlite3's thin JS wrapper. */
function transparent(frame: CallFrame): boolean {
  return frame.url === '' || frame.url.includes('/better-sqlite3/');
}

function categoryOf(frame: CallFrame): string {
  for (const [pattern, name] of CATEGORIES) if (pattern.test(frame.url)) return name;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url)?.[1];
  return pkg ? `other package: ${pkg}` : `other: ${frame.url.split('/').slice(-2).join('/')}`;
}

export interface ProfileSummary {
  /** Profiled wall time (ms). */
  wallMs: number;
  /** Time the host's thread was idle (waiting for I/O) (ms). */
  idleMs: number;
  gcMs: number;
  /** Category → ms, busy time only, largest first. */
  categories: Array<[string, number]>;
  /** The functions with the most self time (native time charged to them), largest first. */
  functions: Array<[string, number]>;
  /** The same, of MiniHarness's own files only (electron/, shared/). */
  own: Array<[string, number]>;
}

/** MiniHarness's own sources (not node_modules, not Node). */
export function isOwnScript(url: string): boolean {
  return /\/(electron|shared)\//.test(url) && !url.includes('/node_modules/');
}

export function summarize(profile: CpuProfile, topFunctions = 12): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  /** The node a sample's time is charged to: itself, or its nearest non-transparent caller. */
  const owner = new Map<number, ProfileNode>();
  const ownerOf = (id: number): ProfileNode => {
    const known = owner.get(id);
    if (known) return known;
    let node = byId.get(id)!;
    while (transparent(node.callFrame) && !node.callFrame.functionName.startsWith('(') && parent.has(node.id)) {
      const up = byId.get(parent.get(node.id)!)!;
      if (up.callFrame.functionName === '(root)') break;
      node = up;
    }
    owner.set(id, node);
    return node;
  };

  const categories = new Map<string, number>();
  const functions = new Map<string, number>();
  const own = new Map<string, number>();
  let idleMs = 0;
  let gcMs = 0;
  // timeDeltas[i] is the time before sample i; the time after it (delta i+1) is what it stands for.
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const node = ownerOf(profile.samples[i]!);
    const name = node.callFrame.functionName;
    if (name === '(idle)') idleMs += ms;
    else if (name === '(garbage collector)') gcMs += ms;
    else {
      const category = name === '(program)' ? 'V8 / native, no JS caller ((program))' : categoryOf(node.callFrame);
      categories.set(category, (categories.get(category) ?? 0) + ms);
      const where = node.callFrame.url
        ? `${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`
        : '';
      const key = `${name || '(anonymous)'} ${where}`.trim();
      functions.set(key, (functions.get(key) ?? 0) + ms);
      if (isOwnScript(node.callFrame.url)) own.set(key, (own.get(key) ?? 0) + ms);
    }
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return {
    wallMs: (profile.endTime - profile.startTime) / 1000,
    idleMs,
    gcMs,
    categories: sorted(categories),
    functions: sorted(functions).slice(0, topFunctions),
    own: sorted(own).slice(0, topFunctions),
  };
}
