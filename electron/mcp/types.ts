/** Shapes the MCP layer hands to the rest of the app (registry, executor, GUI). */
import type {
  DiscoverResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  Implementation,
  InputRequest,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/client';
import type { LogLevel as LoggingLevel, SamplingParams, SamplingResult } from './retiredFeatures.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import type { LogBuffer } from './logBuffer.js';
import type { TaskEvent } from './tasks/followTask.js';
import type { DetailedTaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2';

/** The protocol era a connection speaks: `legacy` (2025 revisions, `initialize`), `modern` (2026-07-28, `server/discover`). */
export type ProtocolEra = 'legacy' | 'modern';

/** How the era was settled: probed by the SDK now, taken from a kept verdict, or pinned by the server's config. */
export type VerdictSource = 'probe' | 'prior' | 'pinned';

/**
 * What the negotiation settled, exactly as the server answered (never made up): the era, the
 * version, and the `initialize` result (legacy) or the `server/discover` result (modern).
 */
export interface NegotiatedInfo {
  era: ProtocolEra;
  verdictSource: VerdictSource;
  protocolVersion: string;
  /** Modern: the `server/discover` result as the server sent it (supported versions, capabilities, cache hints, serverInfo). */
  discover?: DiscoverResult;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions: string | undefined;
  timings: {
    /** Wall time from starting the transport to the end of initialize, in ms. */
    initializeMs: number;
    /** When the connection became ready (epoch ms). */
    readyAt: number;
  };
}

/** A tool as the server described it (the SDK has validated the shape). */
export type ToolDescriptor = Tool;

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  /** Cancels the request (the server is told). */
  signal?: AbortSignal;
  /**
   * Deadline for this request; the server's configured timeout when absent. For `tools/call`,
   * how long the server may stay silent: progress starts it over, and it pauses while a person
   * answers what the server asked (requestDeadline.ts).
   */
  timeoutMs?: number;
  onProgress?: (update: ProgressUpdate) => void;
  /**
   * `tools/call` only: who answers the questions a 2026-07-28 server asks during this call
   * (`input_required`), instead of the client's own handlers (the person). Set when the caller
   * can answer them itself — an agent that declared it can. A legacy server's requests are not
   * tied to a call: they always go to the client's handlers.
   */
  serverRequests?: CallServerRequestHandlers;
  /** `tools/call` only: told after each `input_required` round was answered (never the answers). */
  onInputRound?: (round: InputRound) => void;
  /**
   * `tools/call` only: the call became a task (the tasks extension): told its id at once, then
   * each status it passes through (tasks/followTask.ts) — never its result.
   */
  onTask?: (event: TaskEvent) => void;
  /** `tools/call` only: entries the request carries in `params._meta` — the W3C trace context of the call's span (electron/telemetry/). */
  meta?: Readonly<Record<string, string>>;
}

/** A server's question as the caller of a tool call gets it: the elicitation's params, no server id. */
export type CallQuestion = ElicitRequestFormParams | ElicitRequestURLParams;

/** The caller's own answerers for one tool call's `input_required` rounds; each may be absent. */
export interface CallServerRequestHandlers {
  elicit?: (question: CallQuestion, signal: AbortSignal) => Promise<ElicitResult>;
  sample?: (params: SamplingParams, signal: AbortSignal) => Promise<SamplingResult>;
  /** A 2026-07-28 caller (an agent's `input_required`): a modern server's rounds are relayed whole (inputRounds.ts). */
  relay?: RoundRelay;
}

/** The kinds of request a 2026-07-28 server embeds in `input_required`. */
export type InputKind = 'elicitation' | 'sampling' | 'roots';

/**
 * How a caller that speaks 2026-07-28 itself answers a modern server's rounds: the requests of
 * the kinds it declared, all of a round's at once, under the server's own keys (the caller's
 * `input_required`); what it did not declare is answered here (the person, the configured roots),
 * except sampling, which `refuse` turns into the caller's "missing capability" (-32021).
 */
export interface RoundRelay {
  answers: ReadonlySet<InputKind>;
  /** Resolves with the caller's responses by key (unchecked: inputRounds.ts checks each). */
  round(requests: Record<string, InputRequest>, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** The server asked for what the caller did not declare and nobody here answers for it: the caller is told, the call ends. */
  refuse(kind: InputKind): Promise<never>;
}

/** Who answered an embedded request: the call's caller (an agent), the person, or the client itself (roots). */
export type InputAnswerer = 'agent' | 'person' | 'client';

/** One `input_required` round of a tool call: what was asked and who answered — never the answers. */
export interface InputRound {
  /** 1, 2, 3… */
  round: number;
  requests: Array<{ kind: 'elicitation' | 'sampling' | 'roots'; answeredBy: InputAnswerer }>;
}

export type ClientState = 'new' | 'initializing' | 'ready' | 'closed';

/** The lists a server may say changed (`notifications/<kind>/list_changed`). */
export type ListKind = 'tools' | 'resources' | 'prompts';

/** Why a ready connection went away without close() being called. */
export interface DisconnectInfo {
  error: Error;
}

/**
 * What the registry needs of a client. `MCPClient` is the real one; tests may inject others
 * through the registry's client factory.
 */
export interface ToolClient {
  readonly serverId: string;
  readonly state: ClientState;
  readonly negotiated: NegotiatedInfo | undefined;
  readonly log: LogBuffer;
  initialize(options?: RequestOptions): Promise<NegotiatedInfo>;
  listTools(options?: RequestOptions): Promise<ToolDescriptor[]>;
  callTool(name: string, args: Record<string, unknown>, options?: RequestOptions): Promise<NormalizedToolResult>;
  close(): Promise<void>;
  /** Called once if the connection is lost after initialize (the server exited, the socket dropped). */
  onDisconnect(listener: (info: DisconnectInfo) => void): () => void;
  /** Replaces the folders offered as roots and tells a connected server (clients without roots omit it). */
  setRoots?(roots: readonly string[]): Promise<void>;
  /** Called when the server says a list changed (or a new session replaced a lost one); optional for test doubles. */
  onListChanged?(kind: ListKind, listener: () => void): () => void;
  /** The cache hints that came with the last tool list (modern servers); optional for test doubles. */
  toolListHints?(): ToolListHints | undefined;
  /** `logging/setLevel`; optional for test doubles. */
  setLoggingLevel?(level: LoggingLevel, options?: RequestOptions): Promise<void>;
  /** The tasks extension: a task's state (`tasks/get`) and its cancellation; optional for test doubles. */
  getTask?(taskId: string, options?: RequestOptions): Promise<DetailedTaskV2>;
  cancelTask?(taskId: string, options?: RequestOptions): Promise<void>;
}

/** A modern server's cache hints for its tool list (SEP-2549): how long it is fresh, and whether it may be shared. */
export interface ToolListHints {
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

export type ClientFactory = (config: ServerConfig) => ToolClient;
