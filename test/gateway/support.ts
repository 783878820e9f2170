/**
 * The app core with its agent gateway, in process, over a scratch data folder; and agents as the
 * real SDK `Client` over Streamable HTTP. Tests drive the GUI's side through the contract
 * (`dispatch`) and watch the contract's events, as the renderer would.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { buildScratchCore } from '../helpers/scratchCore.js';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AgentView, AgentVisibility, AgentsView } from '../../shared/agents.js';
import type { ChannelName, EventName } from '../../shared/contract.js';
import type { Core, CoreOptions } from '../../electron/core/types.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, sandboxWritingTo } from '../helpers/fixtures.js';

export const ALL_SERVERS: AgentVisibility = { allServers: true, serverIds: [], localTools: false };

export interface GatewayApp {
  core: Core;
  dataDir: string;
  url: URL;
  events: Array<{ event: EventName; payload: unknown }>;
  /** A contract call; throws the ErrorShape when it fails. */
  call<T = unknown>(channel: ChannelName, payload?: unknown): Promise<T>;
  /** Resolves with the first event (already seen or coming) that matches. */
  nextEvent<T>(event: EventName, match?: (payload: T) => boolean): Promise<T>;
  createAgent(name: string, visibility?: AgentVisibility): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

/**
 * `allowNotListening`: return the app even when its gateway could not bind (a port in use); `url` is then the configured one.
 * `clock`: the time the gateway measures idle clients by (a test advances it instead of waiting).
 */
export async function startGatewayApp(
  dir: string,
  options: {
    gatewayPort?: number;
    allowNotListening?: boolean;
    clock?: () => number;
    gateway?: Pick<
      NonNullable<CoreOptions['gateway']>,
      'maxSessionsPerAgent' | 'waitingProgressMs' | 'fetchClientMetadata'
    >;
    clientConfigPlaces?: CoreOptions['clientConfigPlaces'];
    /** Where the core stores its tool calls (default: the SQLite file in the data folder). */
    database?: CoreOptions['database'];
  } = {},
): Promise<GatewayApp> {
  const dataDir = join(dir, 'data');
  const core = await buildScratchCore(dir, {
    version: '0.0.0-test',
    secretsLabel: 'Test',
    gateway: { port: options.gatewayPort ?? 0, ...(options.clock ? { clock: options.clock } : {}), ...options.gateway },
    ...(options.clientConfigPlaces ? { clientConfigPlaces: options.clientConfigPlaces } : {}),
    ...(options.database ? { database: options.database } : {}),
  });
  const events: GatewayApp['events'] = [];
  const waiters = new Set<{ event: EventName; match: (p: unknown) => boolean; resolve: (p: unknown) => void }>();
  core.onEvent((event, payload) => {
    events.push({ event, payload });
    for (const waiter of waiters) {
      if (waiter.event === event && waiter.match(payload)) {
        waiters.delete(waiter);
        waiter.resolve(payload);
      }
    }
  });
  await core.start();
  const call = async <T>(channel: ChannelName, payload: unknown = {}): Promise<T> => {
    const result = await core.dispatch(channel, payload);
    if (!result.ok)
      throw Object.assign(new Error(`${channel}: ${result.error.code}: ${result.error.message}`), {
        shape: result.error,
      });
    return result.result as T;
  };
  const view = await call<AgentsView>('agents.list');
  if (view.gateway.state !== 'listening' && !options.allowNotListening)
    throw new Error(`the gateway did not start: ${view.gateway.state}`);
  return {
    core,
    dataDir,
    url: new URL(view.gateway.url),
    events,
    call,
    nextEvent<T>(event: EventName, match: (payload: T) => boolean = () => true): Promise<T> {
      const seen = events.find((e) => e.event === event && match(e.payload as T));
      if (seen) return Promise.resolve(seen.payload as T);
      return new Promise<T>((resolve) =>
        waiters.add({ event, match: match as (p: unknown) => boolean, resolve: resolve as (p: unknown) => void }),
      );
    },
    async createAgent(name, visibility = ALL_SERVERS) {
      const created = await call<{ agent: { id: string }; token: string }>('agents.create', { name, visibility });
      return { id: created.agent.id, token: created.token };
    },
    close: () => core.close(),
  };
}

/**
 * Saves a server (with its secrets) and waits until it is ready and its tools are listed — ready
 * comes before the listing, and both events are awaited from before the save, so neither is missed.
 */
export async function saveServerListed(
  app: GatewayApp,
  config: { id: string } & Record<string, unknown>,
  secrets?: Record<string, string>,
): Promise<void> {
  const ready = app.nextEvent<{ serverId: string; status: { state: string } }>(
    'server.status',
    (p) => p.serverId === config.id && p.status.state === 'ready',
  );
  const listed = app.nextEvent<{ tools: Array<{ serverId: string }> }>('tools.changed', (p) =>
    p.tools.some((t) => t.serverId === config.id),
  );
  await app.call('servers.save', { mode: 'create', config, ...(secrets ? { secrets } : {}) });
  await Promise.all([ready, listed]);
}

/**
 * Adds the stdio fixture server (test/doubles/servers/stdio-server.ts, built) as `id` with its
 * env switches, waits until its tools are listed, and sets an ALLOW rule for each tool in `allow`.
 */
export async function addFixtureServer(
  app: GatewayApp,
  id: string,
  env: Record<string, string>,
  allow: readonly string[] = [],
): Promise<void> {
  await saveServerListed(app, {
    id,
    name: `Fixture ${id}`,
    transport: 'stdio',
    command: process.execPath,
    args: [BUILT_STDIO_FIXTURE],
    cwd: PROJECT_ROOT,
    env,
    sandbox: sandboxWritingTo(env),
  });
  for (const toolName of allow) await app.call('permissions.setToolLevel', { serverId: id, toolName, level: 'ALLOW' });
}

/** A 2026-07-28 agent: the v2 SDK's Client negotiating in `auto` mode, over Streamable HTTP with its bearer token. */
export async function connectModernAgent(
  url: URL,
  token: string,
  name = 'modern-agent',
  capabilities: ClientCapabilities = {},
): Promise<ModernClient> {
  const client = new ModernClient({ name, version: '2.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities });
  await client.connect(new ModernHttp(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** A 2025 agent: the v1 SDK's Client (a real legacy-era peer) over Streamable HTTP with its bearer token. */
export async function connectAgent(url: URL, token: string, name = 'test-agent'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** A 2025 request on a given session, as a client that kept only its session id would send it. */
export function requestOnSession(
  url: URL,
  token: string,
  sessionId: string,
): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list', params: {} });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${token}`,
          'Mcp-Session-Id': sessionId,
          'Mcp-Protocol-Version': '2025-06-18',
        },
      },
      (res) => {
        let data = '';
        res.on('data', (chunk: Buffer) => (data += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The Agents view's row of one agent (throws when it is not listed). */
export async function agentRow(app: GatewayApp, agentId: string): Promise<AgentView> {
  const view = await app.call<AgentsView>('agents.list');
  const agent = view.agents.find((a) => a.id === agentId);
  if (!agent) throw new Error('the agent is not listed');
  return agent;
}
