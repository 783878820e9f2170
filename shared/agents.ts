/**
 * The agent gateway as the GUI sees it: the agents (MCP clients) registered to reach MiniHarness
 * as one MCP server, what each may see, who is connected as it (2025 sessions and 2026-07-28
 * clients) and its calls; the endpoint's state; and the
 * names the gateway gives the tools it aggregates. The `_meta` keys an agent may pass on
 * `tools/call` are defined here, with the README's explanation, so every side spells them alike.
 */
import { z } from 'zod';
import { ServerIdSchema } from './serverConfig.js';

/** The gateway's default port on 127.0.0.1 (Settings → Agent gateway changes it). */
export const DEFAULT_GATEWAY_PORT = 47813;
/** The agents' idle window by default, in minutes (Settings → Agent gateway changes it, within the range below). */
export const DEFAULT_AGENT_IDLE_MINUTES = 10;
/** The idle window's range, in minutes: a minute to a day. */
export const MIN_AGENT_IDLE_MINUTES = 1;
export const MAX_AGENT_IDLE_MINUTES = 1440;
/** The gateway's one path. */
export const GATEWAY_PATH = '/mcp';

/**
 * `_meta` keys of `tools/call` (an idempotency key, as HTTP APIs have): an agent that sends the
 * same `callId` (and `session`, when it uses one) again gets the stored result of the first call,
 * never a second run — even after a restart of the app. Without them, the key is the MCP session
 * plus the JSON-RPC request id, which protects only a re-send of the same request in the same
 * session.
 */
export const META_SESSION = 'io.miniharness/session';
export const META_CALL_ID = 'io.miniharness/callId';
/** Set on results: where the call is recorded, for the agent's logs and for replay. */
export const META_TRACE_ID = 'io.miniharness/traceId';
export const META_REPLAYED = 'io.miniharness/replayed';

/** The env variable the stdio entry (`miniharness-gateway`) reads the agent's token from. */
export const GATEWAY_TOKEN_ENV = 'MINIHARNESS_GATEWAY_TOKEN';

const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

/**
 * Names no agent may take, in any case: an agent calls as its name, and `gui` is the caller id of
 * the person at MiniHarness (GUI_USER, electron/core/callService.ts) — an agent named so would read
 * as the person in approvals, notices, traces and counts. A stored agent with such a name (saved
 * before this rule) no longer reads as an agent at all: it cannot connect.
 */
export const RESERVED_AGENT_NAMES: ReadonlySet<string> = new Set(['gui']);

export const AgentNameSchema = z
  .string()
  .trim()
  .regex(AGENT_NAME, 'use 1–64 letters, digits, spaces, . _ or -, starting with a letter or digit')
  .refine(
    (name) => !RESERVED_AGENT_NAMES.has(name.toLowerCase()),
    'is reserved: MiniHarness uses it for the person at this computer — choose another name',
  );

/** Which tools an agent may see (and so call): every server's, or the ones listed; the app's own local tools only when allowed. */
export const AgentVisibilitySchema = z
  .object({
    allServers: z.boolean(),
    serverIds: z.array(ServerIdSchema).max(500),
    localTools: z.boolean(),
    /**
     * Tools (and prompts) keep the names their servers gave them where no other server this agent
     * sees offers the same name (the highest priority keeps a shared name; the others, and every
     * tool, stay reachable as `<server>__<tool>`). Absent or false: always `<server>__<tool>`.
     */
    ownNames: z.boolean().optional(),
  })
  .strict();
export type AgentVisibility = z.infer<typeof AgentVisibilitySchema>;

const AgentSessionViewSchema = z.object({
  sessionId: z.string(),
  /** What the agent said it is in `initialize` (its own words, shown as such). */
  clientName: z.string().optional(),
  clientVersion: z.string().optional(),
  /** The 2025 revision negotiated in `initialize`. */
  protocolVersion: z.string().optional(),
  startedAt: z.number(),
  lastSeenAt: z.number(),
  /**
   * It holds a request or stream open now (the 2025 GET notification stream, a call): a live
   * connection. Otherwise it was only seen at `lastSeenAt`: nothing tells the gateway that a client
   * exited without ending its session, so such a session stays listed (as seen, not connected)
   * until the idle window closes it.
   */
  open: z.boolean(),
});
export type AgentSessionView = z.infer<typeof AgentSessionViewSchema>;

/**
 * A 2026-07-28 client of an agent: it has no session, so it is known by the clientInfo each of
 * its requests carries in its `_meta` envelope (its own words, shown as such). Listed while seen
 * within the idle window or while it holds a request open (a `subscriptions/listen` stream).
 */
/**
 * Where an agent's OAuth sign-in stands, read from the gateway's authorization server each time:
 * `waiting` — allowed on the consent page, but the client has not redeemed its code (it holds no
 * token and cannot call); `active` — it holds a valid access or refresh token; `expired` — its
 * tokens expired or were revoked while the grant stands (it must sign in again); `ended` — the
 * grant itself is gone: ended by the server when a refresh token was used twice (a sign of a
 * stolen token), or past its lifetime. Its client must sign in again (as a new agent).
 */
const SignInStateSchema = z.enum(['waiting', 'active', 'expired', 'ended']);
export type SignInState = z.infer<typeof SignInStateSchema>;

const AgentRecentClientViewSchema = z.object({
  clientName: z.string().optional(),
  clientVersion: z.string().optional(),
  /** The revision its requests are sent for ("2026-07-28"). */
  protocolVersion: z.string(),
  firstSeenAt: z.number(),
  lastSeenAt: z.number(),
  /** It holds a `subscriptions/listen` stream open now. */
  listening: z.boolean(),
});
export type AgentRecentClientView = z.infer<typeof AgentRecentClientViewSchema>;

export const AgentViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  /** Set once the token was revoked: every request with it is refused (401). */
  revokedAt: z.number().optional(),
  visibility: AgentVisibilitySchema,
  /** Open 2025 MCP sessions of this agent now (a session unseen for the idle window is closed; `open` says which is live). */
  sessions: z.array(AgentSessionViewSchema),
  /** 2026-07-28 clients of this agent seen within the idle window, or listening (only a listening one is connected now). */
  recentClients: z.array(AgentRecentClientViewSchema),
  /** Tool calls recorded for this agent (all time). */
  calls: z.number().int().nonnegative(),
  lastCall: z.object({ toolName: z.string(), serverId: z.string(), at: z.number(), status: z.string() }).optional(),
  /**
   * Set when the agent was created by an OAuth sign-in the person allowed in the browser (it has
   * no token to copy): the client's id, its self-asserted name (its own claim) and where its
   * sign-in returned (the redirect's origin).
   */
  signIn: z
    .object({
      clientId: z.string(),
      clientName: z.string().optional(),
      redirectTarget: z.string(),
      state: SignInStateSchema,
    })
    .optional(),
});
export type AgentView = z.infer<typeof AgentViewSchema>;

const GatewayStateSchema = z.enum(['listening', 'off', 'port_in_use', 'failed', 'starting']);
const GatewayStatusSchema = z.object({
  state: GatewayStateSchema,
  /** The configured port (the bound one when listening). */
  port: z.number().int().min(0).max(65535),
  /** `http://127.0.0.1:<port>/mcp` */
  url: z.string(),
  /** `failed`: the system's code (EACCES, …). */
  errno: z.string().optional(),
  /** How an agent that can only spawn a process starts the stdio entry. */
  stdio: z.object({ command: z.string(), args: z.array(z.string()) }),
});
export type GatewayStatus = z.infer<typeof GatewayStatusSchema>;

/**
 * How one tool is named to agents. `renamed`: `sanitized` (characters outside [A-Za-z0-9_-]
 * replaced), `shortened` (cut to 64 with a hash), `collision` (another tool got the plain name
 * first, in the deterministic order: tools whose name needs no change, then server id, then tool
 * name).
 */
const GatewayToolNameSchema = z.object({
  name: z.string(),
  serverId: z.string(),
  toolName: z.string(),
  renamed: z.enum(['none', 'sanitized', 'shortened', 'collision']),
});
export type GatewayToolName = z.infer<typeof GatewayToolNameSchema>;

export const AgentsViewSchema = z.object({
  gateway: GatewayStatusSchema,
  agents: z.array(AgentViewSchema),
  tools: z.array(GatewayToolNameSchema),
});
export type AgentsView = z.infer<typeof AgentsViewSchema>;

export const CreateAgentRequestSchema = z.object({ name: AgentNameSchema, visibility: AgentVisibilitySchema }).strict();

/** The one time the token is seen: the app keeps only its hash. */
export const CreatedAgentSchema = z.object({ agent: AgentViewSchema, token: z.string() });
