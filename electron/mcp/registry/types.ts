/** The registry's vocabulary: server status, registered tools, conflicts, discovery results and events. */
import type { ErrorCause, SandboxReason } from '../../../shared/errors.js';
import type { ServerConfig } from '../../../shared/serverConfig.js';
import type { MCPErrorCode } from '../errors.js';
import type { MCPError } from '../errors.js';
import type { LogBuffer, LogLevel } from '../logBuffer.js';
import type { ToolClient, ToolDescriptor } from '../types.js';

export type ServerStatus =
  | { state: 'disabled' }
  | { state: 'idle' }
  | { state: 'connecting' }
  | { state: 'ready' }
  | {
      state: 'error';
      code: MCPErrorCode | 'internal';
      reason: string;
      cause?: ErrorCause;
      /** `sandbox_unavailable`: why, as a code. */
      sandbox?: { reason: SandboxReason };
    }
  /** The connection was lost; attempt `attempt` starts at `nextRetryAt` (epoch ms). `code`/`reason`: why it was lost or why the last attempt failed. */
  | {
      state: 'reconnecting';
      attempt: number;
      nextRetryAt: number;
      code: MCPErrorCode | 'internal';
      reason: string;
      cause?: ErrorCause;
    }
  | { state: 'closed' };

export interface RegisteredTool {
  /** The name the server gave the tool (and the name callers use). */
  name: string;
  serverId: string;
  priority: number;
  tool: ToolDescriptor;
}

export interface ToolConflict {
  name: string;
  /** The server whose tool a call by name reaches. */
  winner: string;
  /** Every server offering the name, highest priority first. */
  servers: Array<{ serverId: string; priority: number }>;
}

export interface ServerDiscovery {
  status: ServerStatus;
  /** Where the tool list came from. */
  source: 'live' | 'cache' | 'none';
  toolCount: number;
}

export interface DiscoveryResult {
  servers: Record<string, ServerDiscovery>;
  tools: RegisteredTool[];
  conflicts: ToolConflict[];
  durationMs: number;
}

export interface DiscoverOptions {
  /** Reconnect every server and ask it for its tools, ignoring the schema cache. */
  refresh?: boolean;
  signal?: AbortSignal;
}

export type RegistryEvent =
  | { type: 'status'; serverId: string; status: ServerStatus; at: number }
  | { type: 'tools'; tools: RegisteredTool[]; conflicts: ToolConflict[] }
  | { type: 'servers'; servers: ServerConfig[] }
  | { type: 'warning'; message: string };

export interface WaitOptions {
  signal?: AbortSignal;
  /** How long to wait at most. */
  timeoutMs: number;
  /**
   * Wait through `idle` too: an enabled server not connected yet (at start, before discovery
   * opens its connection). Without it, `idle` is refused at once as "not connected".
   */
  throughIdle?: boolean;
  /** Resolve only once the server's tools are in the tool map as well (a cold start lists them after connecting). */
  withTools?: boolean;
}

export interface Connection {
  client: ToolClient;
  fingerprint: string;
  /** Settles when initialize has finished (either way). */
  ready: Promise<void>;
  /** Set once the connection failed or was lost; calls are refused with it. */
  failure?: MCPError;
  /** When it became ready (epoch ms). */
  readyAt?: number;
}

/** One run of automatic reconnection; replaced or dropped when a person (or an edit) takes over. */
export interface ReconnectState {
  attempt: number;
  timer?: ReturnType<typeof setTimeout>;
}

export interface ServerEntry {
  config: ServerConfig;
  /** Bumped on every change, so a discovery that raced an edit drops its stale outcome. */
  generation: number;
  status: ServerStatus;
  log: LogBuffer;
  connection?: Connection;
  reconnect?: ReconnectState;
  /** The MCP log level a person chose for this server (sent at each connect). */
  logLevel?: LogLevel;
}
