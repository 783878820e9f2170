/**
 * The contract's `servers.*` part: the configured servers as the GUI shows them (configuration
 * with secret references only, status, sign-in), their details and logs, and saving one.
 *
 * Secrets: a renderer sends a secret value once (write-only) and afterwards sees only whether
 * it is set. Server configurations hold references ({secret: {source: 'store', key: slot}}),
 * where a slot names the field: `auth.token`, `env.NAME` or `headers.NAME`.
 */
import { z } from 'zod';
import { ErrorCauseSchema, ErrorCodeSchema, SandboxReasonSchema } from '../errors.js';
import { ServerIdSchema } from '../serverConfig.js';
import type { DomainChannels, DomainEvents } from './common.js';
import { Empty, JsonObject, channel } from './common.js';
import { ConflictViewSchema, ToolViewSchema } from './tools.js';

/** A request naming one server. */
const ServerRef = z.object({ id: ServerIdSchema }).strict();

const ServerStatusSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('disabled') }),
  z.object({ state: z.literal('idle') }),
  z.object({ state: z.literal('connecting') }),
  z.object({ state: z.literal('ready') }),
  z.object({
    state: z.literal('error'),
    code: ErrorCodeSchema.catch('unrecognized'),
    reason: z.string(),
    cause: ErrorCauseSchema.optional(),
    /** `sandbox_unavailable`: why the server's sandbox cannot run, as a code. */
    sandbox: z.object({ reason: SandboxReasonSchema }).optional(),
  }),
  z.object({ state: z.literal('closed') }),
  /** The connection was lost and comes back by itself: attempt `attempt` starts at `nextRetryAt` (epoch ms); `code`/`reason` say why it is down. */
  z.object({
    state: z.literal('reconnecting'),
    attempt: z.number().int().positive(),
    nextRetryAt: z.number(),
    code: ErrorCodeSchema.catch('unrecognized'),
    reason: z.string(),
    cause: ErrorCauseSchema.optional(),
  }),
]);
export type ServerStatusView = z.infer<typeof ServerStatusSchema>;

/** A secret slot's state, as the renderer may know it. */
const SecretStateSchema = z.enum(['set', 'not_set']);

/** An OAuth server's sign-in as the GUI may know it (issue 11): never a token. */
const ServerOAuthViewSchema = z.object({
  signedIn: z.boolean(),
  grant: z.enum(['authorization_code', 'client_credentials']),
  /** A browser sign-in waits for the person: the page to open (when no browser opened by itself). */
  authorizationUrl: z.string().optional(),
  /** Scopes a request needed that the sign-in does not have yet: signing in again asks for them. */
  requiredScope: z.string().optional(),
});

/** A server as the GUI shows it: its configuration (references only), status and secret states. */
export const ServerViewSchema = z.object({
  /** The validated configuration (see shared/serverConfig.ts); secret fields are references. */
  config: JsonObject,
  status: ServerStatusSchema,
  /** Slot (`auth.token`, `env.NAME`, `headers.NAME`) → whether a value is stored. */
  secrets: z.record(z.string(), SecretStateSchema),
  toolCount: z.number().int().nonnegative(),
  /** OAuth servers only: signed in or not, a sign-in in progress. */
  oauth: ServerOAuthViewSchema.optional(),
});
export type ServerView = z.infer<typeof ServerViewSchema>;

const NegotiatedViewSchema = z.object({
  /** `legacy`: 2025 revisions (`initialize`); `modern`: 2026-07-28 (`server/discover`, stateless). */
  era: z.enum(['legacy', 'modern']),
  /** How the era was settled: probed now, a kept verdict, or pinned by the configuration. */
  verdictSource: z.enum(['probe', 'prior', 'pinned']),
  protocolVersion: z.string(),
  /** Modern: the versions the server's `server/discover` offered. */
  supportedVersions: z.array(z.string()).optional(),
  /** Modern: the cache hints the `server/discover` result carried, as sent. */
  cacheHints: z.object({ ttlMs: z.number().optional(), cacheScope: z.string().optional() }).optional(),
  capabilities: JsonObject,
  serverInfo: z.looseObject({ name: z.string(), version: z.string(), title: z.string().optional() }),
  instructions: z.string().optional(),
  timings: z.object({ initializeMs: z.number(), readyAt: z.number() }),
});
export type NegotiatedView = z.infer<typeof NegotiatedViewSchema>;

/** MCP logging's severities (syslog's), least severe first: `logging/setLevel` asks for this one and above. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
const LogLevelSchema = z.enum(LOG_LEVELS);
export type LogLevel = z.infer<typeof LogLevelSchema>;

/** `message`: an MCP log message from the server (`notifications/message`), with its level and logger. */
const LogLineSchema = z.object({
  at: z.number(),
  stream: z.enum(['stderr', 'client', 'message']),
  text: z.string(),
  level: LogLevelSchema.optional(),
  logger: z.string().optional(),
});
export type LogLineView = z.infer<typeof LogLineSchema>;

/** Why an entry is in a sandboxed server's profile (issue 29): one code per kind of addition. */
const SANDBOX_ADDITION_REASONS = [
  /** Its own folder under the data folder: readable, writable, its TMPDIR. */
  'own_folder',
  'roots',
  /** The folder its command is installed in (nvm, pyenv, ~/.local/bin …). */
  'command_install',
  'working_folder',
  /** The script a `node` or `python` launcher runs, and its package. */
  'launcher_script',
  'launcher_npm_cache',
  'launcher_npm_registry',
  'launcher_uv_cache',
  'launcher_pypi',
  /** What the person listed in its Sandbox section. */
  'listed',
] as const;
export type SandboxAdditionReason = (typeof SANDBOX_ADDITION_REASONS)[number];

/** What a stdio server's sandbox adds to the defaults, and why (its launcher's needs among them). */
const SandboxProfileViewSchema = z.object({
  /** The launcher its command is (`docker` is recognised and given nothing: its socket is root). */
  launcher: z.enum(['npx', 'uvx', 'node', 'python', 'docker']).optional(),
  /** Hidden from it (the home folders, the app's data folder, the runtime folder, what it lists). */
  hidden: z.array(z.string()),
  additions: z.array(
    z.object({
      reason: z.enum(SANDBOX_ADDITION_REASONS),
      launcher: z.enum(['npx', 'uvx', 'node', 'python', 'docker']).optional(),
      read: z.array(z.string()).optional(),
      write: z.array(z.string()).optional(),
      hosts: z.array(z.string()).optional(),
    }),
  ),
});
export type SandboxProfileView = z.infer<typeof SandboxProfileViewSchema>;

const ServerDetailSchema = z.object({
  server: ServerViewSchema,
  negotiated: NegotiatedViewSchema.optional(),
  tools: z.array(ToolViewSchema),
  /** Name conflicts involving this server's tools. */
  conflicts: z.array(ConflictViewSchema),
  /** The MCP log level chosen for this server in the Log tab (sent at each connect), if any. */
  logLevel: LogLevelSchema.optional(),
  /** A stdio server whose sandbox is on: what its profile adds, and why. */
  sandboxProfile: SandboxProfileViewSchema.optional(),
});
export type ServerDetail = z.infer<typeof ServerDetailSchema>;

/** Write-only secret values, by slot. An empty string clears the slot. */
const SecretValues = z.record(z.string().min(1).max(200), z.string().max(16_384));

const SaveServerRequestSchema = z
  .object({
    /** `create` refuses an existing id; `update` refuses an unknown one. */
    mode: z.enum(['create', 'update']),
    /** Validated in main with the shared server schema; errors come back as fieldErrors. */
    config: JsonObject,
    secrets: SecretValues.default({}),
  })
  .strict();

export const serverChannels = {
  'servers.list': channel(Empty, z.array(ServerViewSchema)),
  'servers.get': channel(ServerRef, ServerDetailSchema),
  'servers.save': channel(SaveServerRequestSchema, ServerViewSchema),
  /** Removes a server; `removeRules` also removes the permission rules made for it (their count is returned). */
  'servers.remove': channel(
    z.object({ id: ServerIdSchema, removeRules: z.boolean().default(false) }).strict(),
    z.object({ removed: z.boolean(), rulesRemoved: z.number().int().nonnegative() }),
  ),
  'servers.setEnabled': channel(z.object({ id: ServerIdSchema, enabled: z.boolean() }).strict(), ServerViewSchema),
  /** Connects (or reconnects) one server and lists its tools. */
  'servers.connect': channel(ServerRef, ServerViewSchema),
  'servers.disconnect': channel(ServerRef, ServerViewSchema),
  /** Discovery of every enabled server; `refresh` reconnects and ignores the tool cache. */
  'servers.discover': channel(z.object({ refresh: z.boolean().default(false) }).strict(), z.array(ServerViewSchema)),
  'servers.log': channel(ServerRef, z.array(LogLineSchema)),
  /** Asks the server for log messages of `level` and above (`logging/setLevel`); kept and sent again at each connect. */
  'servers.setLogLevel': channel(
    z.object({ id: ServerIdSchema, level: LogLevelSchema }).strict(),
    z.object({ level: LogLevelSchema }),
  ),
  /** OAuth (issue 11): starts a browser sign-in (any saved sign-in is replaced) and connects; answers at once, the status streams in. */
  'servers.signIn': channel(ServerRef, ServerViewSchema),
  /** Forgets the server's tokens (they stay only in the secret store until then) and shows it as needing a sign-in. */
  'servers.signOut': channel(ServerRef, ServerViewSchema),
} as const satisfies DomainChannels;

export const serverEvents = {
  /** The server list changed (added, removed, edited, status). */
  'servers.changed': z.object({ servers: z.array(ServerViewSchema) }),
  'server.status': z.object({ serverId: z.string(), status: ServerStatusSchema, at: z.number() }),
  'server.log': z.object({ serverId: z.string(), line: LogLineSchema }),
  /** Browser mode (issue 11): a sign-in page to open in a new tab (Electron opens it in the system browser itself). */
  'oauth.authorize': z.object({ serverId: z.string(), url: z.string().url() }),
} as const satisfies DomainEvents;

// ── secret slots ──────────────────────────────────────────────────────────────────────────────

/** `auth.token`, `auth.clientSecret`, `auth.privateKey` (OAuth), `env.NAME` or `headers.NAME`. */
export const SECRET_SLOT =
  /^(auth\.token|auth\.clientSecret|auth\.privateKey|env\.[A-Za-z_][A-Za-z0-9_]*|headers\.[!#$%&'*+.^_`|~0-9A-Za-z-]+)$/;
