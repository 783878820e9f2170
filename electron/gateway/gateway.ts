/**
 * The agent gateway: MiniHarness as one MCP server (Streamable HTTP) at
 * `http://127.0.0.1:<port>/mcp`, served by the core in both hosts, to agents of both protocol
 * eras. Every request is checked before anything else, whatever its era, in this order: the path
 * (the agents' OAuth sign-in endpoints — metadata, registration, authorization, consent, token,
 * revocation — go to oauth/signIn.ts once their Host is checked); Host and Origin (DNS rebinding:
 * a web page must not reach a loopback server through a name it controls) → 403; the agent's
 * bearer token (a static one, or an access token its sign-in got) → 401 with MiniHarness's
 * sentence and the challenge that starts a sign-in; the body's size → 413, counted while it
 * arrives (its nesting depth → 400, its number of values → 413: shared/jsonBounds.ts), its JSON
 * → 400, and the fields paid for per key or element (a batch's messages, `_meta`'s keys, a
 * `requestState`'s length: requestBounds.ts) → 400 — so no request can stall the process.
 * Only then is the era decided, by the SDK's own predicate (`isLegacyRequest`; once: a body only the
 * modern path can take goes to the modern handler, which decides it itself, eraRoute.ts): a request carrying
 * the 2026-07-28 `_meta` envelope is served statelessly (modernAgents.ts); anything else is a
 * 2025-era request, served in a session (agentSession.ts) that must belong to that agent.
 * Who is connected is known in both eras (clientPresence.ts): the 2025 sessions, and the
 * 2026-07-28 clients by the clientInfo of their envelopes. A session unseen for the idle window
 * with no request open is closed (a client that exited without ending it says nothing), and a
 * request on it then gets 404 "session not found", so a client still there initializes again.
 * Revoking or removing an agent answers its waiting requests before its connections close
 * (callsInFlight.ts); beyond an agent's limit of sessions only an idle one makes room, and a new
 * session is refused (503) when every one has a call in flight (sessionLimit.ts); an agent holds at
 * most a quarter of the connection cap in open requests, and 32 listen streams (agentShare.ts).
 * Nothing an agent sends can end the process. A port in use is a state the Agents view shows, not
 * a crash.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInitializeRequest, isLegacyRequest } from '@modelcontextprotocol/server';
import type { AgentRecentClientView, AgentSessionView, GatewayStatus, SignInState } from '../../shared/agents.js';
import { GATEWAY_PATH } from '../../shared/agents.js';
import { JsonBoundsCounter, jsonBreachSentence } from '../../shared/jsonBounds.js';
import { MAX_BRIDGE_FRAME_BYTES } from '../../shared/limits.js';
import type { HttpLimits } from '../security/httpLimits.js';
import { DEFAULT_HTTP_LIMITS, answerClientError, capConnections, httpServerOptions } from '../security/httpLimits.js';
import { isAllowedHost, isAllowedOrigin } from '../security/loopbackAccess.js';
import type { AgentSessionDeps } from './agentServer.js';
import { AgentSession } from './agentSession.js';
import { CallsInFlight } from './callsInFlight.js';
import { surelyLegacy, surelyModern } from './eraRoute.js';
import { AgentTasks } from './agentTasks.js';
import { roomForSessions } from './sessionLimit.js';
import { OpenPerAgent, openRequestShare } from './agentShare.js';
import type { AgentStorage, StoredAgent } from './agentStore.js';
import type { Clock } from './clientPresence.js';
import { AGENT_IDLE_MS, holdWhileOpen, isIdle, ModernClients } from './clientPresence.js';
import { ModernAgents } from './modernAgents.js';
import type { GatewayFollowing } from './agentSubscriptions.js';
import { AgentSubscriptions, CallsPerServer } from './agentSubscriptions.js';
import { BodyOverBounds, BodyTooLarge, readBody } from './requestBody.js';
import { requestBoundsRefusal } from './requestBounds.js';
import { GatewaySignIn } from './oauth/signIn.js';
import { OAuthStore } from './oauth/oauthStore.js';
import { abortedUnanswered, serveWebRequest, toWebRequest } from './webResponse.js';

export interface GatewayOptions extends Omit<AgentSessionDeps, 'agent' | 'onActivity'> {
  agents: AgentStorage;
  /** How an agent that can only spawn a process reaches the gateway (shown in Connect an agent). */
  stdio: GatewayStatus['stdio'];
  /** Sessions opened or closed, the state changed (at once); calls started or ended (at most every ACTIVITY_REPORT_MS). */
  onChange(): void;
  /** Largest request body (default: the bridge's frame limit, 16 MiB). */
  maxBodyBytes?: number;
  /** Open sessions one agent may hold; beyond it the least recently used idle one is closed, and a new one is refused when all are busy (sessionLimit.ts). */
  maxSessionsPerAgent?: number;
  /** A 2025 session or 2026-07-28 client unseen this long with no request open is no longer connected (default AGENT_IDLE_MS; `setIdleMs` changes it). */
  idleMs?: number;
  /** The time (default Date.now; tests advance their own). */
  clock?: Clock;
  /** Connections open at once, and the time to receive a request (security/httpLimits.ts). */
  httpLimits?: Partial<HttpLimits>;
  /** Agents' OAuth sign-in (oauth/signIn.ts); default: one kept in memory, offering no servers to choose. */
  signIn?: GatewaySignIn;
  /** Resource subscriptions and the servers' log messages for agents (agentSubscriptions.ts); absent: not offered. */
  following?: GatewayFollowing;
}

type State = Pick<GatewayStatus, 'state' | 'errno'> & { port: number };

/**
 * Calls starting and ending are reported at most this often. Each report rebuilds the Agents
 * view (counts read from the traces, the whole view validated): once per call, that cost grew with
 * the history and came to dominate the gateway's own time per call. A burst is reported once, at
 * its end, within this delay.
 */
const ACTIVITY_REPORT_MS = 250;
/** A request already answered (refused) while it was being read. */
const ANSWERED = Symbol('answered');

function jsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return void res.end();
  res
    .writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

export class Gateway {
  private http: HttpServer | undefined;
  private state: State = { state: 'off', port: 0 };
  /** Open sessions by MCP session id. */
  private readonly sessions = new Map<string, AgentSession>();
  private readonly maxBodyBytes: number;
  private readonly maxSessions: number;
  private activityTimer: NodeJS.Timeout | undefined;
  /** Modern (stateless) agents: one SDK handler per agent. */
  private readonly modern: ModernAgents;
  /** Modern clients seen lately, by the clientInfo of their envelopes. */
  private readonly modernClients: ModernClients;
  private idleMs: number;
  private readonly clock: Clock;
  /** Looks for idle sessions and clients while listening. */
  private idleTimer: NodeJS.Timeout | undefined;
  /** The loopback authorization server and token check (oauth/). */
  private readonly signIn: GatewaySignIn;
  /** When a request last looked for idle sessions and clients, and how often one does (never longer than the idle window). */
  private lastSweepAt = -Infinity;
  private sweepMs: number;
  /** Requests that run or wait on something: answered before a connection closes; their sessions are busy. */
  private readonly inFlight = new CallsInFlight();
  /** Shutting down (`drain`): new requests are refused. */
  private draining = false;
  /** The agents' tasks (agentTasks.ts), shared by every request of the stateless era. */
  private readonly agentTasks = new AgentTasks();
  /** Requests each agent holds open: at most its share of the connection cap (agentShare.ts). */
  private readonly openRequests: OpenPerAgent;

  /** Subscriptions and log messages of the servers behind, shared by every agent (agentSubscriptions.ts). */
  private readonly followers: AgentSessionDeps['followers'];

  constructor(private readonly options: GatewayOptions) {
    this.followers = options.following
      ? {
          source: options.following,
          subscriptions: new AgentSubscriptions(options.following),
          calls: new CallsPerServer(),
        }
      : undefined;
    this.maxBodyBytes = options.maxBodyBytes ?? MAX_BRIDGE_FRAME_BYTES;
    this.maxSessions = options.maxSessionsPerAgent ?? 32;
    this.idleMs = options.idleMs ?? AGENT_IDLE_MS;
    this.clock = options.clock ?? Date.now;
    this.sweepMs = Math.min(1000, this.idleMs);
    this.modern = new ModernAgents((agentId) => this.depsOf(agentId));
    this.modernClients = new ModernClients(this.clock, this.idleMs, () => options.onChange());
    this.openRequests = new OpenPerAgent(
      openRequestShare({ ...DEFAULT_HTTP_LIMITS, ...options.httpLimits }.maxConnections),
    );
    this.signIn =
      options.signIn ??
      new GatewaySignIn({
        agents: options.agents,
        store: new OAuthStore(undefined),
        servers: () => [],
        onAgentCreated: () => options.onChange(),
        onSignInChanged: () => options.onChange(),
      });
  }

  status(): GatewayStatus {
    return {
      state: this.state.state,
      port: this.state.port,
      url: `http://127.0.0.1:${this.state.port}${GATEWAY_PATH}`,
      ...(this.state.errno ? { errno: this.state.errno } : {}),
      stdio: this.options.stdio,
    };
  }

  /** Listens on 127.0.0.1:`port` (0: any free port). Resolves with the state; never rejects. */
  async start(port: number): Promise<GatewayStatus> {
    await this.stop();
    this.draining = false;
    // Bounded connections and time to receive a request (a slow body → 408), by node:http itself.
    const limits = { ...DEFAULT_HTTP_LIMITS, ...this.options.httpLimits };
    const http = createServer(httpServerOptions(limits), (req, res) => void this.handle(req, res));
    capConnections(http, limits);
    http.on('clientError', (error, socket) => answerClientError(error, socket, 'The MiniHarness gateway'));
    this.setState({ state: 'starting', port });
    const outcome = await new Promise<State>((resolve) => {
      http.once('error', (error: NodeJS.ErrnoException) =>
        resolve(
          error.code === 'EADDRINUSE'
            ? { state: 'port_in_use', port }
            : { state: 'failed', port, errno: error.code ?? 'error' },
        ),
      );
      http.listen({ host: '127.0.0.1', port }, () =>
        resolve({ state: 'listening', port: (http.address() as AddressInfo).port }),
      );
    });
    if (outcome.state === 'listening') {
      this.http = http;
      this.signIn.listenOn(outcome.port);
      // A later error (none expected once bound) must not end the process.
      http.on('error', () => undefined);
      this.startIdleTimer();
    } else http.close();
    this.setState(outcome);
    return this.status();
  }

  /** The timer that looks for idle sessions and clients: as often as the window, between 1 s and a minute. */
  private startIdleTimer(): void {
    clearInterval(this.idleTimer);
    this.idleTimer = setInterval(
      () => void this.expireIdle().catch(() => undefined),
      Math.max(1000, Math.min(this.idleMs, 60_000)),
    );
    this.idleTimer.unref();
  }

  /**
   * The idle window changed (Settings → Agent gateway), applied at once without a restart: the
   * sessions and clients already unseen that long go now (sessions closed, the view told), and
   * requests look for idle ones at most every min(1 s, window) as before.
   */
  async setIdleMs(idleMs: number): Promise<void> {
    if (idleMs === this.idleMs) return;
    this.idleMs = idleMs;
    this.sweepMs = Math.min(1000, idleMs);
    this.modernClients.setIdleMs(idleMs);
    if (this.idleTimer) this.startIdleTimer();
    // A longer window may list again a session or client that was idle but not yet gone.
    this.options.onChange();
    await this.expireIdle();
  }

  /**
   * The instance shuts down (serve's SIGTERM): every new request is refused with 503 and
   * Retry-After (behind a balancer another instance answers it), and this resolves once the
   * calls in flight are answered, or after `graceMs`. `stop` then closes.
   */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    await this.inFlight.whenIdle(graceMs);
  }

  /** Closes every session and stops listening. */
  async stop(): Promise<void> {
    const http = this.http;
    this.http = undefined;
    this.signIn.stop();
    clearTimeout(this.activityTimer);
    this.activityTimer = undefined;
    clearInterval(this.idleTimer);
    this.idleTimer = undefined;
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
    this.sessions.clear();
    this.agentTasks.close();
    await this.modern.close();
    this.modernClients.forgetAll();
    if (http) {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    }
    if (this.state.state !== 'off') this.setState({ state: 'off', port: this.state.port });
  }

  /** The agent's open 2025 sessions (one idle but not yet closed is left out). */
  sessionsOf(agentId: string): AgentSessionView[] {
    const now = this.clock();
    return [...this.sessions.values()]
      .filter((s) => s.agentId === agentId && s.sessionId !== undefined && !isIdle(s, now, this.idleMs))
      .map((s) => {
        const info = s.clientInfo;
        const protocolVersion = s.protocolVersion;
        return {
          sessionId: s.sessionId as string,
          ...(info?.name ? { clientName: info.name } : {}),
          ...(info?.version ? { clientVersion: info.version } : {}),
          ...(protocolVersion ? { protocolVersion } : {}),
          startedAt: s.startedAt,
          lastSeenAt: s.lastSeenAt,
          open: s.openRequests > 0,
        };
      });
  }

  /** Where a signed-in agent's sign-in stands, by its grant. */
  signInStateOf(grantId: string): SignInState {
    return this.signIn.grantState(grantId);
  }

  /** The agent's 2026-07-28 clients connected now. */
  recentClientsOf(agentId: string): AgentRecentClientView[] {
    return this.modernClients.list(agentId);
  }

  /**
   * Closes the 2025 sessions idle now (their transports closed, the sessions removed) and forgets
   * the idle 2026-07-28 clients; the view is told when something went. Runs on a timer while
   * listening, and on every authenticated request.
   */
  async expireIdle(): Promise<void> {
    const now = this.clock();
    const idle = [...this.sessions.values()].filter((s) => isIdle(s, now, this.idleMs));
    // onClosed (each session's transport closing) reports the change.
    await Promise.all(idle.map((s) => s.close()));
    if (this.modernClients.forgetIdle()) this.options.onChange();
  }

  /** The tools or an agent's visibility changed: sessions and listen streams whose list differs get list_changed. */
  async toolsChanged(): Promise<void> {
    this.modern.toolsMayHaveChanged();
    await Promise.all([...this.sessions.values()].map((s) => s.toolsMayHaveChanged()));
  }

  /**
   * The agent was revoked or removed: the revocation of its grant and tokens starts first (a
   * signed-in agent holds nothing that works from now on), then its requests in flight are ended and answered with
   * `why` (callsInFlight.ts), then its sessions and listen streams end.
   */
  async closeAgent(agentId: string, why = 'this agent’s access was revoked in MiniHarness'): Promise<void> {
    // Not waited for first: a slow database must not hold the agent's calls open (its access tokens are
    // already refused: the agent itself is revoked); a failure is said by the sign-in (a warning).
    const grantRevoked = this.signIn.revokeAgent(agentId);
    this.modernClients.forgetAgent(agentId);
    await this.inFlight.endAgent(agentId, why);
    await Promise.all([
      ...[...this.sessions.values()].filter((s) => s.agentId === agentId).map((s) => s.close()),
      this.modern.closeAgent(agentId),
      grantRevoked,
    ]);
  }

  /** A call started or ended: one report for everything that happens within ACTIVITY_REPORT_MS. */
  private activity(): void {
    if (this.activityTimer) return;
    this.activityTimer = setTimeout(() => {
      this.activityTimer = undefined;
      this.options.onChange();
    }, ACTIVITY_REPORT_MS);
    this.activityTimer.unref();
  }

  private setState(state: State): void {
    this.state = state;
    this.options.onChange();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    try {
      await this.route(req, res);
    } catch {
      // The SDK answers protocol problems itself; anything else is ours, and ends only this request.
      jsonRpcError(res, 500, -32603, 'Internal error in the MiniHarness gateway.');
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.draining)
      return jsonRpcError(
        res,
        503,
        -32000,
        'This MiniHarness instance is shutting down: send the request again (another instance answers it).',
        { 'Retry-After': '1', Connection: 'close' },
      );
    const agent = await this.admit(req, res);
    if (!agent) return;

    // Authenticated requests also look for idle sessions and clients, besides the timer — at most once per sweep interval
    // (a walk of every session per request was measurable under load; a request on an idle session is still refused below).
    const now = this.clock();
    if (now - this.lastSweepAt >= this.sweepMs) {
      this.lastSweepAt = now;
      void this.expireIdle().catch(() => undefined);
    }

    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    let body: unknown;
    if (req.method === 'POST') {
      const read = await this.readJsonBody(req, res);
      if (read === ANSWERED) return;
      body = read.body;
    }

    // The SDK's own era decision (the envelope claim), on the body already read: modern requests never reach a session.
    // A body only the modern path can take skips it (eraRoute.ts): the modern handler decides its era again itself.
    // One Web Request per request: the era decision, then the session transport or the modern handler, read it.
    // A 2025 session's call or notification is known as legacy the same way (surelyLegacy), without the SDK's response probes.
    const versionHeader = req.headers['mcp-protocol-version'];
    const legacy = surelyLegacy(body, Array.isArray(versionHeader) ? versionHeader.join(', ') : versionHeader);
    // The abort signal is the modern handler's (it ends an exchange by it); a 2025 session's transport never reads
    // request.signal (its calls end by the session's own cancellation), and a Request that follows a signal costs
    // an AbortController, a listener and a finalizer registration each (issue 33).
    const webRequest = toWebRequest(req, legacy ? undefined : abortedUnanswered(res));
    if (!legacy && (surelyModern(body) || !(await isLegacyRequest(webRequest, body)))) {
      if (this.modernClients.request(agent.id, body, res)) this.options.onChange();
      return this.modern.serve(agent.id, req, res, body, webRequest);
    }
    return this.serveLegacy(req, res, agent, sessionId, body, webRequest);
  }

  /**
   * The request's path, Host, Origin and token checked, and the agent's share of connections held
   * (agentShare.ts): the agent, or undefined once the request is answered (a sign-in endpoint, or a refusal).
   */
  private async admit(req: IncomingMessage, res: ServerResponse): Promise<StoredAgent | undefined> {
    const port = this.state.port;
    let path: string;
    const target = req.url ?? '/';
    // An agent's request names the gateway's path as is: no URL parse for it (one per request otherwise).
    if (target === GATEWAY_PATH || target.startsWith(`${GATEWAY_PATH}?`)) path = GATEWAY_PATH;
    else
      try {
        path = new URL(target, 'http://host').pathname;
      } catch {
        jsonRpcError(res, 400, -32600, 'Bad request URL.');
        return undefined;
      }
    // The sign-in's endpoints (metadata, registration, authorization, consent, token, revocation): Host checked, then theirs.
    if (this.signIn.handles(path)) {
      if (!isAllowedHost(req.headers.host, port)) jsonRpcError(res, 403, -32600, 'Forbidden: unexpected Host header.');
      else await this.signIn.serve(req, res, path);
      return undefined;
    }
    const refusal =
      path !== GATEWAY_PATH
        ? ([404, -32601, `Not found: the MiniHarness gateway is at ${GATEWAY_PATH}.`] as const)
        : !isAllowedHost(req.headers.host, port)
          ? ([403, -32600, 'Forbidden: unexpected Host header.'] as const)
          : !isAllowedOrigin(req.headers.origin, port)
            ? ([403, -32600, 'Forbidden: unexpected Origin.'] as const)
            : undefined;
    if (refusal) {
      jsonRpcError(res, refusal[0], refusal[1], refusal[2]);
      return undefined;
    }
    // A static token or a signed-in agent's access token; refused, the client reads MiniHarness's sentence (header and body).
    const authenticated = await this.signIn.authenticate(req.headers.authorization, req.headers.host);
    if (!('agent' in authenticated)) {
      jsonRpcError(res, authenticated.status, -32001, authenticated.sentence, authenticated.headers);
      return undefined;
    }
    const agent = authenticated.agent;
    // The agent's share of the connections (agentShare.ts): beyond it, other agents would find none.
    if (!this.openRequests.hold(agent.id, res)) {
      jsonRpcError(
        res,
        503,
        -32000,
        `Too many requests open: this agent already has ${this.openRequests.max} requests open at once (streams, calls waiting), and MiniHarness allows ${this.openRequests.max} per agent so that other agents keep room. Close a stream you no longer use, or wait for a call to finish.`,
        { 'Retry-After': '5' },
      );
      return undefined;
    }
    return agent;
  }

  /** A POST's body, read within the bounds and parsed; ANSWERED when it was refused (too large, too deep, not JSON). */
  private async readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<{ body: unknown } | typeof ANSWERED> {
    let raw: Buffer;
    try {
      // Counted while it arrives: too deep or too many values is refused before anything parses or walks it (requestBounds.ts).
      raw = await readBody(req, this.maxBodyBytes, new JsonBoundsCounter());
    } catch (error) {
      if (error instanceof BodyTooLarge || error instanceof BodyOverBounds) {
        // The rest of the body is not read: the connection ends once the answer is out.
        res.once('finish', () => req.destroy());
        const [status, message] =
          error instanceof BodyTooLarge
            ? [413, `Request too large: the gateway accepts at most ${this.maxBodyBytes} bytes.`]
            : error.breach.limit === 'depth'
              ? [400, `Invalid request: ${jsonBreachSentence(error.breach, 'the body')}`]
              : [413, `Request too large: ${jsonBreachSentence(error.breach, 'the body')}`];
        jsonRpcError(res, status, -32600, message, { Connection: 'close' });
        return ANSWERED;
      }
      throw error;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      jsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON.');
      return ANSWERED;
    }
    const refusal = requestBoundsRefusal(body);
    if (refusal !== undefined) {
      jsonRpcError(res, 400, -32600, refusal);
      return ANSWERED;
    }
    return { body };
  }

  /** A 2025 request: on its session (checked: this agent's, not idle), or an initialize that opens one within the agent's limit. */
  private async serveLegacy(
    req: IncomingMessage,
    res: ServerResponse,
    agent: StoredAgent,
    sessionId: string | undefined,
    body: unknown,
    webRequest: Request,
  ): Promise<void> {
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      // Another agent's session id is as unknown as a made-up one.
      if (!session || session.agentId !== agent.id)
        return jsonRpcError(res, 404, -32001, 'Session not found: initialize a new session.');
      // Idle but not yet closed by the timer: it is closed now, and is as unknown as any other.
      if (isIdle(session, this.clock(), this.idleMs)) {
        await session.close();
        return jsonRpcError(res, 404, -32001, 'Session not found: it expired unused; initialize a new session.');
      }
      holdWhileOpen(session, res, this.clock, () => this.activity());
      return serveWebRequest(
        req,
        res,
        (request, options) => session.transport.handleRequest(request, options),
        body,
        webRequest,
      );
    }
    // No session and no envelope: a GET (the 2025 notification stream) or DELETE needs a session; a 2026-07-28 agent has neither.
    if (req.method !== 'POST')
      return jsonRpcError(res, 405, -32000, 'Method not allowed: without a session the gateway answers POST only.', {
        Allow: 'POST',
      });
    if (!(Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body))) {
      return jsonRpcError(res, 400, -32000, 'Bad request: no session id; start with an initialize request.');
    }
    // Within the agent's limit of sessions: an idle one makes room, a busy one never does (sessionLimit.ts).
    const room = roomForSessions(this.sessionsOfAgent(agent.id), this.maxSessions, (s) => this.isBusy(s));
    if (room.refused) return jsonRpcError(res, 503, -32000, room.message, { 'Retry-After': '5' });
    await Promise.all(room.evict.map((s) => s.close()));
    const session = this.openSession(agent);
    holdWhileOpen(session, res, this.clock, () => this.activity());
    await session.start();
    await serveWebRequest(
      req,
      res,
      (request, options) => session.transport.handleRequest(request, options),
      body,
      webRequest,
    );
  }

  /** What an agent server needs, for one agent: its current state (undefined once revoked or removed) and the app's call path. */
  private depsOf(agentId: string): AgentSessionDeps {
    const { agents } = this.options;
    return {
      ...this.options,
      agent: () => {
        const current = agents.list().find((a) => a.id === agentId);
        return current && current.revokedAt === undefined ? current : undefined;
      },
      onActivity: () => this.activity(),
      inFlight: this.inFlight,
      tasks: this.agentTasks,
      ...(this.followers ? { followers: this.followers } : {}),
    };
  }

  private openSession(agent: StoredAgent): AgentSession {
    const { onChange } = this.options;
    return new AgentSession(
      agent.id,
      this.depsOf(agent.id),
      {
        onInitialized: (session) => {
          this.sessions.set(session.sessionId as string, session);
          this.evictBeyondLimit(agent.id);
          onChange();
        },
        onClosed: (session) => {
          if (session.sessionId !== undefined && this.sessions.get(session.sessionId) === session)
            this.sessions.delete(session.sessionId);
          onChange();
        },
      },
      this.clock,
    );
  }

  /** Sessions initialized at once may still go beyond the limit: the least recently seen idle ones go (sessionLimit.ts). */
  private evictBeyondLimit(agentId: string): void {
    const room = roomForSessions(this.sessionsOfAgent(agentId), this.maxSessions, (s) => this.isBusy(s), 0);
    if (!room.refused) for (const session of room.evict) void session.close();
  }

  private sessionsOfAgent(agentId: string): AgentSession[] {
    return [...this.sessions.values()].filter((s) => s.agentId === agentId);
  }

  /** A session with a call (or read) running or waiting: its connection carries that answer. */
  private isBusy(session: AgentSession): boolean {
    return session.sessionId !== undefined && this.inFlight.busy(session.sessionId);
  }
}
