/**
 * The IPC contract between the main process and the renderer: every channel with zod schemas
 * for its request and response, and every event main pushes to the renderer. Both sides derive
 * their types from here; main validates every incoming payload with it, and responses are parsed
 * through their schema on the way out (unknown fields are stripped, so nothing slips across
 * that the contract does not name).
 *
 * Transports: Electron IPC (preload exposes one named function per channel) or, in browser mode,
 * a loopback WebSocket (`bridge.ts`). The contract is the same.
 *
 * Secrets: a renderer sends a secret value once (write-only) and afterwards sees only whether
 * it is set. Server configurations hold references ({secret: {source: 'store', key: slot}}),
 * where a slot names the field: `auth.token`, `env.NAME` or `headers.NAME`.
 */
import { z } from 'zod';

// ── shared shapes ─────────────────────────────────────────────────────────────────────────────

/** The one serializable error shape every failed call returns. Never holds a secret. */
export const ErrorShapeSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z
    .object({
      /** Field path → messages, for forms. */
      fieldErrors: z.record(z.string(), z.array(z.string())).optional(),
      traceId: z.string().optional(),
      serverId: z.string().optional(),
    })
    .optional(),
});
export type ErrorShape = z.infer<typeof ErrorShapeSchema>;

const Empty = z.object({}).strict();
const ServerId = z.object({ id: z.string().min(1).max(64) }).strict();
const JsonObject = z.record(z.string(), z.unknown());

export const ServerStatusSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('disabled') }),
  z.object({ state: z.literal('idle') }),
  z.object({ state: z.literal('connecting') }),
  z.object({ state: z.literal('ready') }),
  z.object({ state: z.literal('error'), code: z.string(), reason: z.string() }),
  z.object({ state: z.literal('closed') }),
]);
export type ServerStatusView = z.infer<typeof ServerStatusSchema>;

/** A secret slot's state, as the renderer may know it. */
export const SecretStateSchema = z.enum(['set', 'not_set']);

/** A server as the GUI shows it: its configuration (references only), status and secret states. */
export const ServerViewSchema = z.object({
  /** The validated configuration (see shared/serverConfig.ts); secret fields are references. */
  config: JsonObject,
  status: ServerStatusSchema,
  /** Slot (`auth.token`, `env.NAME`, `headers.NAME`) → whether a value is stored. */
  secrets: z.record(z.string(), SecretStateSchema),
  toolCount: z.number().int().nonnegative(),
});
export type ServerView = z.infer<typeof ServerViewSchema>;

export const NegotiatedViewSchema = z.object({
  protocolVersion: z.string(),
  capabilities: JsonObject,
  serverInfo: z.looseObject({ name: z.string(), version: z.string(), title: z.string().optional() }),
  instructions: z.string().optional(),
  timings: z.object({ initializeMs: z.number(), readyAt: z.number() }),
});
export type NegotiatedView = z.infer<typeof NegotiatedViewSchema>;

export const ToolViewSchema = z.object({
  name: z.string(),
  source: z.enum(['local', 'mcp']),
  serverId: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: JsonObject,
  outputSchema: JsonObject.optional(),
  annotations: JsonObject.optional(),
  /** The server a call by this name reaches instead (a name conflict), when not this one. */
  shadowedBy: z.string().optional(),
});
export type ToolView = z.infer<typeof ToolViewSchema>;

export const ConflictViewSchema = z.object({
  name: z.string(),
  winner: z.string(),
  servers: z.array(z.object({ serverId: z.string(), priority: z.number() })),
});
export type ConflictView = z.infer<typeof ConflictViewSchema>;

export const LogLineSchema = z.object({ at: z.number(), stream: z.enum(['stderr', 'client']), text: z.string() });
export type LogLineView = z.infer<typeof LogLineSchema>;

export const ServerDetailSchema = z.object({
  server: ServerViewSchema,
  negotiated: NegotiatedViewSchema.optional(),
  tools: z.array(ToolViewSchema),
  /** Name conflicts involving this server's tools. */
  conflicts: z.array(ConflictViewSchema),
});
export type ServerDetail = z.infer<typeof ServerDetailSchema>;

export const SecretBackendSchema = z.object({
  /** `safeStorage` (Electron), `keyring` (OS secret service), `file` (0600 file, browser mode fallback). */
  kind: z.enum(['safeStorage', 'keyring', 'file']),
  /** False when secrets are not encrypted by the OS (Linux `basic_text`, or the file fallback). */
  secure: z.boolean(),
  /** Shown in the GUI when not secure. */
  warning: z.string().optional(),
});

export const AppInfoSchema = z.object({
  mode: z.enum(['electron', 'browser']),
  version: z.string(),
  secretBackend: SecretBackendSchema,
  /** Warnings to show once (a corrupt file that was moved aside, …). */
  warnings: z.array(z.string()),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

/** Write-only secret values, by slot. An empty string clears the slot. */
const SecretValues = z.record(z.string().min(1).max(200), z.string().max(16_384));

export const SaveServerRequestSchema = z
  .object({
    /** `create` refuses an existing id; `update` refuses an unknown one. */
    mode: z.enum(['create', 'update']),
    /** Validated in main with the shared server schema; errors come back as fieldErrors. */
    config: JsonObject,
    secrets: SecretValues.default({}),
  })
  .strict();
export type SaveServerRequest = z.input<typeof SaveServerRequestSchema>;

// ── channels ──────────────────────────────────────────────────────────────────────────────────

function channel<Req extends z.ZodType, Res extends z.ZodType>(request: Req, response: Res) {
  return { request, response };
}

export const channels = {
  'app.info': channel(Empty, AppInfoSchema),

  'servers.list': channel(Empty, z.array(ServerViewSchema)),
  'servers.get': channel(ServerId, ServerDetailSchema),
  'servers.save': channel(SaveServerRequestSchema, ServerViewSchema),
  'servers.remove': channel(ServerId, z.object({ removed: z.boolean() })),
  'servers.setEnabled': channel(z.object({ id: z.string().min(1).max(64), enabled: z.boolean() }).strict(), ServerViewSchema),
  /** Connects (or reconnects) one server and lists its tools. */
  'servers.connect': channel(ServerId, ServerViewSchema),
  'servers.disconnect': channel(ServerId, ServerViewSchema),
  /** Discovery of every enabled server; `refresh` reconnects and ignores the tool cache. */
  'servers.discover': channel(z.object({ refresh: z.boolean().default(false) }).strict(), z.array(ServerViewSchema)),
  'servers.log': channel(ServerId, z.array(LogLineSchema)),

  'tools.list': channel(Empty, z.object({ tools: z.array(ToolViewSchema), conflicts: z.array(ConflictViewSchema) })),
} as const;

export type Channels = typeof channels;
export type ChannelName = keyof Channels;
export const CHANNEL_NAMES = Object.keys(channels) as ChannelName[];

/** What the renderer sends (defaults may be omitted). */
export type RequestOf<C extends ChannelName> = z.input<Channels[C]['request']>;
/** What main's handler receives (validated, defaults applied). */
export type ParsedRequestOf<C extends ChannelName> = z.output<Channels[C]['request']>;
export type ResponseOf<C extends ChannelName> = z.output<Channels[C]['response']>;

// ── events (main → renderer) ──────────────────────────────────────────────────────────────────

export const events = {
  /** The server list changed (added, removed, edited, status). */
  'servers.changed': z.object({ servers: z.array(ServerViewSchema) }),
  'server.status': z.object({ serverId: z.string(), status: ServerStatusSchema, at: z.number() }),
  'server.log': z.object({ serverId: z.string(), line: LogLineSchema }),
  'tools.changed': z.object({ tools: z.array(ToolViewSchema), conflicts: z.array(ConflictViewSchema) }),
} as const;

export type Events = typeof events;
export type EventName = keyof Events;
export const EVENT_NAMES = Object.keys(events) as EventName[];
export type EventOf<E extends EventName> = z.output<Events[E]>;

export function isChannelName(name: unknown): name is ChannelName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(channels, name);
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}

// ── secret slots ──────────────────────────────────────────────────────────────────────────────

/** `auth.token`, `env.NAME` or `headers.NAME`. */
export const SECRET_SLOT = /^(auth\.token|env\.[A-Za-z_][A-Za-z0-9_]*|headers\.[!#$%&'*+.^_`|~0-9A-Za-z-]+)$/;
