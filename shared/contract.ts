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
import type { ChannelName, EventName } from './channelNames.js';
import { CHANNEL_NAMES, EVENT_NAMES } from './channelNames.js';
import { AgentsViewSchema, AgentViewSchema, AgentVisibilitySchema, CreateAgentRequestSchema, CreatedAgentSchema } from './agents.js';
import { TraceDetailSchema, TraceExportSchema, TraceStatusSchema, TraceSummarySchema } from './traces.js';
import { ErrorCauseSchema, ErrorCodeSchema, ErrorDetailsSchema } from './errors.js';
import { AskAnswerSchema, AskClosedSchema, AskViewSchema } from './asks.js';
import { runChannels, runEvents } from './runs.js';
import { MAX_IMPORT_CONTENT_CHARS, MAX_TOOL_ARGS_BYTES, formatBytes, jsonByteLength } from './limits.js';

// ── shared shapes ─────────────────────────────────────────────────────────────────────────────

/** The one serializable error shape every failed call returns: a code of the union and typed details (shared/errors.ts). Never holds a secret. */
export const ErrorShapeSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: ErrorDetailsSchema.optional(),
});
/** The same shape as the renderer reads it: a code from a newer main is `unrecognized`, details it cannot read are dropped. */
export const ReceivedErrorShapeSchema = ErrorShapeSchema.extend({
  code: ErrorCodeSchema.catch('unrecognized'),
  details: ErrorDetailsSchema.optional().catch(undefined),
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
  z.object({ state: z.literal('error'), code: ErrorCodeSchema.catch('unrecognized'), reason: z.string(), cause: ErrorCauseSchema.optional() }),
  z.object({ state: z.literal('closed') }),
  /** The connection was lost and comes back by itself: attempt `attempt` starts at `nextRetryAt` (epoch ms); `code`/`reason` say why it is down. */
  z.object({ state: z.literal('reconnecting'), attempt: z.number().int().positive(), nextRetryAt: z.number(), code: ErrorCodeSchema.catch('unrecognized'), reason: z.string(), cause: ErrorCauseSchema.optional() }),
]);
export type ServerStatusView = z.infer<typeof ServerStatusSchema>;

/** A secret slot's state, as the renderer may know it. */
export const SecretStateSchema = z.enum(['set', 'not_set']);

/** An OAuth server's sign-in as the GUI may know it (issue 11): never a token. */
export const ServerOAuthViewSchema = z.object({
  signedIn: z.boolean(),
  grant: z.enum(['authorization_code', 'client_credentials']),
  /** A browser sign-in waits for the person: the page to open (when no browser opened by itself). */
  authorizationUrl: z.string().optional(),
  /** Scopes a request needed that the sign-in does not have yet: signing in again asks for them. */
  requiredScope: z.string().optional(),
});
export type ServerOAuthView = z.infer<typeof ServerOAuthViewSchema>;

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

export const NegotiatedViewSchema = z.object({
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

/** An MCP icon the page may show: main passes only inline images (`data:`), the page loads nothing from the network. */
export const ToolIconSchema = z.object({
  src: z.string(),
  mimeType: z.string().optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.enum(['light', 'dark']).optional(),
});
export type ToolIcon = z.infer<typeof ToolIconSchema>;

export const ToolViewSchema = z.object({
  name: z.string(),
  source: z.enum(['local', 'mcp']),
  serverId: z.string(),
  title: z.string().optional(),
  /** The tool's icons (MCP `icons`), inline images only. */
  icons: z.array(ToolIconSchema).optional(),
  description: z.string().optional(),
  inputSchema: JsonObject,
  outputSchema: JsonObject.optional(),
  annotations: JsonObject.optional(),
  /** The server a call by this name reaches instead (a name conflict), when not this one. */
  shadowedBy: z.string().optional(),
  /** True while this server's tool list comes from the schema cache and the server is not ready yet. */
  cached: z.boolean().optional(),
});
export type ToolView = z.infer<typeof ToolViewSchema>;

export const ConflictViewSchema = z.object({
  name: z.string(),
  winner: z.string(),
  servers: z.array(z.object({ serverId: z.string(), priority: z.number() })),
});
export type ConflictView = z.infer<typeof ConflictViewSchema>;

/** MCP logging's severities (syslog's), least severe first: `logging/setLevel` asks for this one and above. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export const LogLevelSchema = z.enum(LOG_LEVELS);
export type LogLevel = z.infer<typeof LogLevelSchema>;

/** `message`: an MCP log message from the server (`notifications/message`), with its level and logger. */
export const LogLineSchema = z.object({
  at: z.number(),
  stream: z.enum(['stderr', 'client', 'message']),
  text: z.string(),
  level: LogLevelSchema.optional(),
  logger: z.string().optional(),
});
export type LogLineView = z.infer<typeof LogLineSchema>;

export const ServerDetailSchema = z.object({
  server: ServerViewSchema,
  negotiated: NegotiatedViewSchema.optional(),
  tools: z.array(ToolViewSchema),
  /** Name conflicts involving this server's tools. */
  conflicts: z.array(ConflictViewSchema),
  /** The MCP log level chosen for this server in the Log tab (sent at each connect), if any. */
  logLevel: LogLevelSchema.optional(),
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

/** What confines run_command: bubblewrap (Linux), sandbox-exec (macOS), or nothing (every call asks). */
export const SandboxInfoSchema = z.object({
  kind: z.enum(['bwrap', 'sandbox-exec', 'none']),
  /** For people: what it confines, or why there is no sandbox. */
  detail: z.string(),
});
/** What a damaged file held, and so what the app started without. */
export const DamagedFileLossSchema = z.enum(['settings', 'history', 'permission_rules', 'secrets', 'tool_cache']);
export type DamagedFileLoss = z.infer<typeof DamagedFileLossSchema>;

/**
 * A startup warning, as data: the GUI words it by `code`. `file_damaged`: a file the app could
 * not read was moved aside (kept, timestamped) and the app started without its content.
 * `notice`: any other one-time message (already worded, secrets redacted).
 */
export const AppWarningSchema = z.discriminatedUnion('code', [
  z.object({
    code: z.literal('file_damaged'),
    /** The damaged file's path. */
    file: z.string(),
    /** Where its bytes are now. */
    movedTo: z.string(),
    lost: DamagedFileLossSchema,
    /** `not_json` / `invalid_content` (JSON of the wrong shape) / `not_sqlite` / `empty` (0 bytes). */
    problem: z.enum(['not_json', 'invalid_content', 'not_sqlite', 'empty']),
  }),
  z.object({ code: z.literal('notice'), message: z.string() }),
]);
export type AppWarning = z.infer<typeof AppWarningSchema>;
export type FileDamagedWarning = Extract<AppWarning, { code: 'file_damaged' }>;

export const AppInfoSchema = z.object({
  mode: z.enum(['electron', 'browser']),
  version: z.string(),
  secretBackend: SecretBackendSchema,
  sandbox: SandboxInfoSchema,
  /** Warnings to show once (a damaged file that was moved aside, …). */
  warnings: z.array(AppWarningSchema),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

// ── tool calls, approvals, permissions, traces, history, import ──────────────────────────────

const ContentBlockSchema = z.looseObject({ type: z.string() });

/** A tool result as the GUI renders it (text, image, resource link, structured content, isError). */
export const ToolResultViewSchema = z.object({
  content: z.array(ContentBlockSchema),
  structuredContent: JsonObject.optional(),
  isError: z.boolean(),
});
export type ToolResultView = z.infer<typeof ToolResultViewSchema>;

export const CallOutcomeSchema = z.object({
  callId: z.string(),
  traceId: z.string(),
  sessionId: z.string(),
  toolName: z.string(),
  serverId: z.string(),
  /** True when a completed checkpoint answered and nothing ran. */
  replayed: z.boolean(),
  attempts: z.number().int().nonnegative(),
  result: ToolResultViewSchema,
  warnings: z.array(z.string()),
});
export type CallOutcome = z.infer<typeof CallOutcomeSchema>;

/**
 * A tool's arguments: at most MAX_TOOL_ARGS_BYTES as JSON (shared/limits.ts), so a call fits in
 * one bridge frame. The issue carries `params.tooLarge` so the renderer can say so by code.
 */
const ToolArgs = JsonObject.superRefine((args, ctx) => {
  const sizeBytes = jsonByteLength(args);
  if (sizeBytes > MAX_TOOL_ARGS_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `The arguments are ${formatBytes(sizeBytes)} as JSON; the limit is ${formatBytes(MAX_TOOL_ARGS_BYTES)}.`,
      params: { tooLarge: { limitBytes: MAX_TOOL_ARGS_BYTES, sizeBytes } },
    });
  }
});

const CallId = z.string().regex(/^[A-Za-z0-9_.:-]{8,100}$/, 'must be 8–100 letters, digits or _ . : -');

export const ToolCallRequestSchema = z
  .object({
    name: z.string().min(1).max(200),
    /** `local` or a server id: which tool of that name to run. */
    serverId: z.string().min(1).max(64),
    args: ToolArgs,
    /** A fresh id per call, made by the GUI; reusing one replays (or is refused). */
    callId: CallId,
    timeoutMs: z.number().int().min(100).max(3_600_000).optional(),
  })
  .strict();

export const ApprovalAnswerSchema = z.enum(['allow-once', 'allow-session', 'allow-always', 'deny']);

export const ApprovalViewSchema = z.object({
  requestId: z.string(),
  sessionId: z.string(),
  /** Who asks: `gui` for the person's own calls, else the agent's name (gateway). */
  userId: z.string(),
  toolName: z.string(),
  serverId: z.string(),
  args: JsonObject,
  annotations: JsonObject.optional(),
  /** Why it asks, in words. */
  reason: z.string(),
  expiresAt: z.number(),
  /**
   * When the caller itself stops waiting (epoch ms), when known — an agent's client default —
   * and how that is known, in words. Absent: unknown (or the person's own call).
   */
  callerWait: z.object({ until: z.number(), basis: z.string() }).optional(),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;

export const PermissionLevelSchema = z.enum(['ALLOW', 'ASK', 'DENY']);

export const PermissionRuleViewSchema = z.object({
  id: z.string(),
  level: PermissionLevelSchema,
  match: z.looseObject({
    serverId: z.string().optional(),
    toolName: z.string().optional(),
    toolPattern: z.string().optional(),
    schemaFingerprint: z.string().optional(),
    /** The identity of the server the rule was made for (see ServerConfig `uid`). */
    serverUid: z.string().optional(),
  }),
  note: z.string().optional(),
  createdAt: z.number(),
  /** An "always allow" granted from an approval dialog (bound to the tool's fingerprint). */
  fromApproval: z.boolean(),
  /** The rule no longer applies: see `staleReason`. */
  stale: z.boolean(),
  /**
   * Why a stale rule no longer applies: `tool_changed` (the tool's schema changed since),
   * `server_replaced` (a different server now has this id), `server_removed` (no server has it).
   */
  staleReason: z.enum(['tool_changed', 'server_replaced', 'server_removed']).optional(),
});
export type PermissionRuleView = z.infer<typeof PermissionRuleViewSchema>;

/**
 * Why a tool has its level now: a stored `rule`; a `session-grant` ("allow for this session",
 * revocable); a default (`trusted-annotation-default`, `untrusted-default`, `default`); or
 * `forced-ask` (the tool's own guard asks every time, e.g. run_command without an OS sandbox).
 */
export const PermissionReasonKindSchema = z.enum(['rule', 'session-grant', 'trusted-annotation-default', 'untrusted-default', 'default', 'forced-ask']);
export type PermissionReasonKind = z.infer<typeof PermissionReasonKindSchema>;

export const ToolPermissionViewSchema = z.object({
  toolName: z.string(),
  serverId: z.string(),
  /** The level a call gets now (an "allow for this session" grant included). */
  level: PermissionLevelSchema,
  reason: z.object({ kind: PermissionReasonKindSchema, detail: z.string(), ruleId: z.string().optional() }),
  /** This GUI session holds an "allow for this session" grant for the tool (revocable). */
  sessionGrant: z.boolean().optional(),
  /** The id of this tool's own per-tool rule, when one is set. */
  toolRuleId: z.string().optional(),
});

export const PermissionsViewSchema = z.object({
  tools: z.array(ToolPermissionViewSchema),
  servers: z.array(z.object({ serverId: z.string(), name: z.string(), trusted: z.boolean() })),
  rules: z.array(PermissionRuleViewSchema),
  /** This GUI session's "allow for this session" grants; `stale` when the tool changed since. */
  sessionGrants: z.array(z.object({ serverId: z.string(), toolName: z.string(), stale: z.boolean() })),
});
export type PermissionsView = z.infer<typeof PermissionsViewSchema>;

export const CheckpointStatusSchema = z.enum(['started', 'completed', 'failed']);
/**
 * The History status filter: a stored status, or `tool_error` (completed, but the result has
 * `isError`; `completed` then means it has not), or `cancelled` (a `started` record whose call
 * was cancelled while it ran; `started` then excludes those).
 */
export const HistoryStatusFilterSchema = z.enum(['started', 'completed', 'failed', 'tool_error', 'cancelled']);

export const HistoryRecordSchema = z.object({
  sessionId: z.string(),
  callId: z.string(),
  userId: z.string(),
  toolName: z.string(),
  serverId: z.string(),
  /**
   * `started`: running now in this app. `unknown`: started, but no live call owns it (its owner
   * failed or the app died mid-call) — the remote side may have acted; resolve it by hand.
   * `cancelled`: the same, because its call was cancelled while it ran (by its caller, or by the
   * app: an agent revoked, a server removed) — the server was told, but may have acted.
   */
  status: z.enum(['started', 'unknown', 'completed', 'failed', 'cancelled']),
  args: z.unknown(),
  result: ToolResultViewSchema.optional(),
  lastError: z.object({ code: z.string().optional(), message: z.string(), at: z.number() }).optional(),
  attempts: z.number(),
  traceId: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  resolvedBy: z.literal('manual').optional(),
  resolutionNote: z.string().optional(),
  /** The server's task id, when the server ran the call as a task (the tasks extension): the app asks the server how it ended. */
  taskId: z.string().optional(),
  /**
   * In a `history.page` row whose arguments or result are large: they are left out of the row
   * (`args` absent, no `result`) and described here; `history.get` returns the whole record.
   */
  preview: z
    .object({
      argsBytes: z.number(),
      resultBytes: z.number().optional(),
      /** The first characters of the left-out arguments' JSON. */
      args: z.string().optional(),
      /** The first characters of the left-out result's JSON. */
      result: z.string().optional(),
      /** The left-out result's `isError` (a tool error), so the row can say so without it. */
      resultIsError: z.boolean().optional(),
      truncated: z.boolean(),
    })
    .optional(),
});
export type HistoryRecordView = z.infer<typeof HistoryRecordSchema>;

const PageLimit = z.number().int().min(1).max(500).default(100);
const Cursor = z.string().max(500).optional();

export const ImportFormatSchema = z.enum(['claude', 'vscode', 'cursor']);

export const ImportPreviewSchema = z.object({
  format: ImportFormatSchema,
  servers: z.array(
    z.object({
      /** The name in the file. */
      name: z.string(),
      /** The configuration it becomes (secret fields as slots), or undefined when it cannot be imported. */
      config: JsonObject.optional(),
      /** Secret slots whose values come from the file (stored on import, never shown). */
      secretSlots: z.array(z.string()),
      /** VS Code `${input:…}` prompts this server needs. */
      inputs: z.array(z.string()),
      exists: z.boolean(),
      problems: z.array(z.string()),
    }),
  ),
  inputs: z.array(z.object({ id: z.string(), description: z.string(), password: z.boolean() })),
});
export type ImportPreview = z.infer<typeof ImportPreviewSchema>;

const ImportFile = z.object({ fileName: z.string().max(500).optional(), content: z.string().max(MAX_IMPORT_CONTENT_CHARS) });

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

/** Settings: the folders the local tools may use. */
export const SettingsViewSchema = z.object({
  roots: z.array(
    z.object({
      path: z.string(),
      /** The workspace: always first, cannot be removed here (--workspace / MINIHARNESS_WORKSPACE). */
      workspace: z.boolean(),
    }),
  ),
  /** The agent gateway's endpoint: on or off, and its port on 127.0.0.1. */
  gateway: z.object({ enabled: z.boolean(), port: z.number().int().min(1).max(65535) }),
  /** How long an approval waits for an answer before the call is denied. */
  approvalTimeoutSeconds: z.number().int(),
  /**
   * Desktop app: closing the window keeps the app (its servers, approvals and the gateway)
   * running in the tray (Windows, Linux) or the dock (macOS). Browser mode ignores it.
   */
  keepRunningOnClose: z.boolean(),
});
export type SettingsView = z.infer<typeof SettingsViewSchema>;

// ── resources, prompts, completion: what a server offers beside tools ──────────────────────

const FeatureServerId = z.string().min(1).max(64);
const ResourceUri = z.string().min(1).max(8192);
/** A prompt argument's or a template variable's value, as typed. */
const ArgumentValue = z.string().max(65_536);
const ArgumentValues = z.record(z.string().min(1).max(200), ArgumentValue);

export const ResourceViewSchema = z.object({
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  /** The raw content's size in bytes, when the server says. */
  size: z.number().optional(),
  annotations: JsonObject.optional(),
});
export type ResourceView = z.infer<typeof ResourceViewSchema>;

export const ResourceTemplateViewSchema = z.object({
  uriTemplate: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  annotations: JsonObject.optional(),
  /** The template's variables (RFC 6570), in order: the fields of its form. */
  variables: z.array(z.string()),
});
export type ResourceTemplateView = z.infer<typeof ResourceTemplateViewSchema>;

export const ResourceListViewSchema = z.object({
  resources: z.array(ResourceViewSchema),
  templates: z.array(ResourceTemplateViewSchema),
  /** The server listed more than the app keeps (shared/limits.ts MAX_LISTED_*): the lists end early. */
  truncated: z.boolean(),
  /** The server takes subscriptions (`resources.subscribe`). */
  canSubscribe: z.boolean(),
  /** The URIs the app is subscribed to on this server. */
  subscribed: z.array(z.string()),
});
export type ResourceListView = z.infer<typeof ResourceListViewSchema>;

/**
 * One item of a resource's contents, bounded for the GUI (shared/limits.ts): a text cut after
 * MAX_CONTENT_TEXT_BYTES (`truncated`), or base64 binary data carried only when small (`omitted`
 * otherwise). `sizeBytes`: the whole item as the server sent it (UTF-8 text, or decoded bytes).
 */
export const ResourceContentViewSchema = z.object({
  uri: z.string(),
  mimeType: z.string().optional(),
  kind: z.enum(['text', 'blob']),
  text: z.string().optional(),
  blob: z.string().optional(),
  sizeBytes: z.number().int().nonnegative(),
  truncated: z.boolean().optional(),
  omitted: z.boolean().optional(),
});
export type ResourceContentView = z.infer<typeof ResourceContentViewSchema>;

export const ResourceReadViewSchema = z.object({
  /** The URI read (a template's, expanded). */
  uri: z.string(),
  contents: z.array(ResourceContentViewSchema),
  traceId: z.string(),
});
export type ResourceReadView = z.infer<typeof ResourceReadViewSchema>;

export const PromptViewSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean() })),
});
export type PromptView = z.infer<typeof PromptViewSchema>;

export const PromptListViewSchema = z.object({ prompts: z.array(PromptViewSchema), truncated: z.boolean() });
export type PromptListView = z.infer<typeof PromptListViewSchema>;

/**
 * A prompt's messages. Each content block keeps the MCP shape (`text`, `image`, `audio`,
 * `resource_link`, `resource`), bounded like resource contents: a long text is cut (`truncated`,
 * `sizeBytes`), large image or audio data is left out (`omitted`, `sizeBytes`), an embedded
 * resource is a ResourceContentView.
 */
export const PromptResultViewSchema = z.object({
  description: z.string().optional(),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: ContentBlockSchema })),
  traceId: z.string(),
});
export type PromptResultView = z.infer<typeof PromptResultViewSchema>;

/** What a completion is for: a prompt's argument, or a resource template's variable. */
export const CompletionRefSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('prompt'), name: z.string().min(1).max(200) }).strict(),
  z.object({ type: z.literal('resource'), uriTemplate: ResourceUri }).strict(),
]);
export type CompletionRef = z.infer<typeof CompletionRefSchema>;

export const CompletionViewSchema = z.object({
  values: z.array(z.string()),
  /** How many values exist in all, when the server says. */
  total: z.number().int().nonnegative().optional(),
  hasMore: z.boolean().optional(),
});
export type CompletionView = z.infer<typeof CompletionViewSchema>;

/** `resources.read`: a URI, or a template with its variables (main expands it, RFC 6570). */
export const ResourceReadRequestSchema = z.union([
  z.object({ serverId: FeatureServerId, uri: ResourceUri }).strict(),
  z.object({ serverId: FeatureServerId, uriTemplate: ResourceUri, variables: ArgumentValues }).strict(),
]);

// ── channels ──────────────────────────────────────────────────────────────────────────────────

function channel<Req extends z.ZodType, Res extends z.ZodType>(request: Req, response: Res) {
  return { request, response };
}

/** Keys the contract by the names in channelNames.ts: a missing or an extra channel or event fails the typecheck. */
type ChannelSpec = { request: z.ZodType; response: z.ZodType };

export const channels = {
  'app.info': channel(Empty, AppInfoSchema),

  'servers.list': channel(Empty, z.array(ServerViewSchema)),
  'servers.get': channel(ServerId, ServerDetailSchema),
  'servers.save': channel(SaveServerRequestSchema, ServerViewSchema),
  /** Removes a server; `removeRules` also removes the permission rules made for it (their count is returned). */
  'servers.remove': channel(
    z.object({ id: z.string().min(1).max(64), removeRules: z.boolean().default(false) }).strict(),
    z.object({ removed: z.boolean(), rulesRemoved: z.number().int().nonnegative() }),
  ),
  'servers.setEnabled': channel(z.object({ id: z.string().min(1).max(64), enabled: z.boolean() }).strict(), ServerViewSchema),
  /** Connects (or reconnects) one server and lists its tools. */
  'servers.connect': channel(ServerId, ServerViewSchema),
  'servers.disconnect': channel(ServerId, ServerViewSchema),
  /** Discovery of every enabled server; `refresh` reconnects and ignores the tool cache. */
  'servers.discover': channel(z.object({ refresh: z.boolean().default(false) }).strict(), z.array(ServerViewSchema)),
  'servers.log': channel(ServerId, z.array(LogLineSchema)),
  /** Asks the server for log messages of `level` and above (`logging/setLevel`); kept and sent again at each connect. */
  'servers.setLogLevel': channel(z.object({ id: z.string().min(1).max(64), level: LogLevelSchema }).strict(), z.object({ level: LogLevelSchema })),
  /** OAuth (issue 11): starts a browser sign-in (any saved sign-in is replaced) and connects; answers at once, the status streams in. */
  'servers.signIn': channel(ServerId, ServerViewSchema),
  /** Forgets the server's tokens (they stay only in the secret store until then) and shows it as needing a sign-in. */
  'servers.signOut': channel(ServerId, ServerViewSchema),

  'tools.list': channel(Empty, z.object({ tools: z.array(ToolViewSchema), conflicts: z.array(ConflictViewSchema) })),
  /** Runs a tool through the whole pipeline (permissions, approval, checkpoint, trace). */
  'tools.call': channel(ToolCallRequestSchema, CallOutcomeSchema),
  /** Cancels a running call of this GUI session (the server is told). */
  'tools.cancel': channel(z.object({ callId: CallId }).strict(), z.object({ cancelled: z.boolean() })),

  'approvals.list': channel(Empty, z.array(ApprovalViewSchema)),
  /** Answers one pending approval; a stale, repeated or unknown request id is refused. */
  'approvals.answer': channel(z.object({ requestId: z.string().min(1).max(100), answer: ApprovalAnswerSchema }).strict(), z.object({ accepted: z.literal(true) })),

  'permissions.get': channel(Empty, PermissionsViewSchema),
  /** Sets one tool's level; `default` removes its rule (the default applies again). */
  'permissions.setToolLevel': channel(
    z.object({ serverId: z.string().min(1).max(64), toolName: z.string().min(1).max(200), level: z.enum(['ALLOW', 'ASK', 'DENY', 'default']) }).strict(),
    PermissionsViewSchema,
  ),
  'permissions.setServerTrust': channel(z.object({ serverId: z.string().min(1).max(64), trusted: z.boolean() }).strict(), PermissionsViewSchema),
  /** Revokes a rule (an "always allow", or a per-tool level). */
  'permissions.removeRule': channel(z.object({ ruleId: z.string().min(1).max(200) }).strict(), PermissionsViewSchema),
  /** Revokes this GUI session's "allow for this session" grant for one tool: it asks again. */
  'permissions.revokeSessionGrant': channel(z.object({ serverId: z.string().min(1).max(64), toolName: z.string().min(1).max(200) }).strict(), PermissionsViewSchema),

  /** The app settings the GUI edits: the local tools' folders (the workspace first, fixed). */
  'settings.get': channel(Empty, SettingsViewSchema),
  /**
   * Sets the local tools' extra folders (the workspace stays first and is not listed here).
   * Applied at once to the file tools and run_command. A folder that does not exist, is not
   * absolute, or overlaps the data folder is refused (`validation` with fieldErrors `roots.N`).
   */
  'settings.setRoots': channel(z.object({ roots: z.array(z.string().min(1).max(4096)).max(50) }).strict(), SettingsViewSchema),
  /** Turns the agent gateway on or off, or moves it to another port (applied at once; a port in use shows in agents.list). */
  'settings.setGateway': channel(z.object({ enabled: z.boolean(), port: z.number().int().min(1024).max(65535) }).strict(), SettingsViewSchema),
  /** How long an approval waits before the call is denied (applies to requests made after). */
  'settings.setApprovalTimeout': channel(z.object({ seconds: z.number().int().min(10).max(3600) }).strict(), SettingsViewSchema),

  /** The agent gateway: its endpoint, the registered agents, and the tool names agents see. */
  'agents.list': channel(Empty, AgentsViewSchema),
  /** Registers an agent; its token is in the answer, once (only its hash is kept). */
  'agents.create': channel(CreateAgentRequestSchema, CreatedAgentSchema),
  /** Changes which servers (and whether the local tools) an agent sees; its sessions get list_changed. */
  'agents.setVisibility': channel(z.object({ id: z.string().min(1).max(100), visibility: AgentVisibilitySchema }).strict(), AgentViewSchema),
  /** Revokes an agent's token: its sessions close and every later request is refused (401). */
  'agents.revoke': channel(z.object({ id: z.string().min(1).max(100) }).strict(), AgentViewSchema),
  /** Forgets a revoked agent (its recorded calls stay in History). */
  'agents.remove': channel(z.object({ id: z.string().min(1).max(100) }).strict(), z.object({ removed: z.boolean() })),
  /** Sets whether closing the desktop app's window keeps it running in the background (tray / dock). */
  'settings.setKeepRunning': channel(z.object({ keepRunning: z.boolean() }).strict(), SettingsViewSchema),

  'traces.list': channel(
    z
      .object({
        toolName: z.string().max(200).optional(),
        serverId: z.string().max(64).optional(),
        status: TraceStatusSchema.optional(),
        sessionId: z.string().max(200).optional(),
        /** Only the calls of this caller: `gui`, or an agent's name. */
        userId: z.string().max(200).optional(),
        limit: PageLimit,
        cursor: Cursor,
      })
      .strict(),
    z.object({ traces: z.array(TraceSummarySchema), nextCursor: z.string().optional() }),
  ),
  'traces.get': channel(z.object({ traceId: z.string().min(1).max(100) }).strict(), TraceDetailSchema),
  'traces.export': channel(z.object({ traceId: z.string().min(1).max(100) }).strict(), TraceExportSchema),

  'history.sessions': channel(
    Empty,
    z.object({
      current: z.string(),
      sessions: z.array(z.object({ sessionId: z.string(), count: z.number(), started: z.number(), lastActivity: z.number() })),
    }),
  ),
  'history.page': channel(
    z
      .object({
        sessionId: z.string().max(200).optional(),
        status: HistoryStatusFilterSchema.optional(),
        toolName: z.string().max(200).optional(),
        /** Only the calls of this caller: `gui`, or an agent's name. */
        userId: z.string().max(200).optional(),
        limit: PageLimit,
        cursor: Cursor,
      })
      .strict(),
    z.object({ records: z.array(HistoryRecordSchema), nextCursor: z.string().optional() }),
  ),
  /** One whole record (a page row may carry only a preview of large arguments or results). */
  'history.get': channel(z.object({ sessionId: z.string().min(1).max(200), callId: CallId }).strict(), HistoryRecordSchema),
  /** Returns a completed call's stored result (nothing runs) and records the replay in a trace. */
  'history.replay': channel(z.object({ sessionId: z.string().min(1).max(200), callId: CallId }).strict(), CallOutcomeSchema),
  /** Runs a recorded call again as a NEW call (new callId, permissions and approval again). */
  'history.rerun': channel(z.object({ sessionId: z.string().min(1).max(200), callId: CallId, newCallId: CallId }).strict(), CallOutcomeSchema),
  /** A person decides how a call whose result is unknown ended (after checking the remote side). */
  'history.resolve': channel(
    z
      .object({
        sessionId: z.string().min(1).max(200),
        callId: CallId,
        resolution: z.discriminatedUnion('status', [
          z.object({ status: z.literal('failed'), note: z.string().max(1000).optional() }).strict(),
          z.object({ status: z.literal('completed'), resultText: z.string().max(100_000), note: z.string().max(1000).optional() }).strict(),
        ]),
      })
      .strict(),
    HistoryRecordSchema,
  ),

  /** Reads a Claude Desktop / VS Code / Cursor MCP config and shows what would be imported. */
  'import.preview': channel(ImportFile.strict(), ImportPreviewSchema),
  /** Imports the chosen servers; secret values go to the secret store. Nothing on any error. */
  'import.apply': channel(
    ImportFile.extend({ names: z.array(z.string().max(200)).min(1).max(200), inputs: z.record(z.string().max(200), z.string().max(16_384)).default({}) }).strict(),
    z.object({ imported: z.array(ServerViewSchema) }),
  ),

  /** What servers are asking the person now (elicitation, sampling), oldest first. */
  'asks.list': channel(Empty, z.array(AskViewSchema)),
  /**
   * Answers one ask, once. A stale, repeated or unknown id is refused (`stale_ask`); an answer that
   * does not fit the ask is `invalid_request`; form values that do not fit the server's schema are
   * `validation` with fieldErrors, and the ask stays open.
   */
  'asks.answer': channel(z.object({ requestId: z.string().min(1).max(100), answer: AskAnswerSchema }).strict(), z.object({ accepted: z.literal(true) })),
  /** A server's resources and resource templates (listed once per connection, again when it says they changed). `refresh` lists them anew. */
  'resources.list': channel(z.object({ serverId: FeatureServerId, refresh: z.boolean().default(false) }).strict(), ResourceListViewSchema),
  /** Reads a resource (bounded for the GUI), recorded as a trace. */
  'resources.read': channel(ResourceReadRequestSchema, ResourceReadViewSchema),
  /** Subscribes to a resource's updates ('resources.updated'); answers the URIs subscribed on that server. */
  'resources.subscribe': channel(z.object({ serverId: FeatureServerId, uri: ResourceUri }).strict(), z.object({ subscribed: z.array(z.string()) })),
  'resources.unsubscribe': channel(z.object({ serverId: FeatureServerId, uri: ResourceUri }).strict(), z.object({ subscribed: z.array(z.string()) })),
  'prompts.list': channel(z.object({ serverId: FeatureServerId, refresh: z.boolean().default(false) }).strict(), PromptListViewSchema),
  /** Gets a prompt with its arguments (bounded for the GUI), recorded as a trace. */
  'prompts.get': channel(z.object({ serverId: FeatureServerId, name: z.string().min(1).max(200), arguments: ArgumentValues.default({}) }).strict(), PromptResultViewSchema),
  /** Suggestions for a prompt argument or a template variable; `context`: the values already entered in the form. */
  'completion.complete': channel(
    z
      .object({
        serverId: FeatureServerId,
        ref: CompletionRefSchema,
        argument: z.object({ name: z.string().min(1).max(200), value: z.string().max(4096) }).strict(),
        context: z.record(z.string().min(1).max(200), z.string().max(4096)).optional(),
      })
      .strict(),
    CompletionViewSchema,
  ),
  // The person's models and agent runs (issue 21), defined in their own file.
  ...runChannels,
} as const satisfies Record<ChannelName, ChannelSpec>;

export type Channels = typeof channels;
export type { ChannelName, EventName };
export { CHANNEL_NAMES, EVENT_NAMES };

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
  /** Progress of a running GUI call. */
  'call.progress': z.object({ callId: z.string(), progress: z.number(), total: z.number().optional(), message: z.string().optional() }),
  /** A running GUI call the server runs as a task (the tasks extension): its id and status, never its result. */
  'call.task': z.object({
    callId: z.string(),
    taskId: z.string(),
    status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
    statusMessage: z.string().optional(),
  }),
  'approval.requested': ApprovalViewSchema,
  /** The approval is no longer pending (answered, timed out, or the call was cancelled). */
  'approval.closed': z.object({ requestId: z.string(), outcome: z.enum(['answered', 'expired', 'cancelled']) }),
  /** Desktop app: the person clicked the OS notification of this approval; bring it forward. */
  'approval.show': z.object({ requestId: z.string() }),
  /** A trace started or finished (the list refreshes from it). */
  'trace.changed': z.object({ trace: TraceSummarySchema }),
  'permissions.changed': z.object({}),
  /** A setting changed: the whole settings view (the desktop shell follows `keepRunningOnClose` with it). */
  'settings.changed': z.object({ settings: SettingsViewSchema }),
  /** The startup warnings changed (a damaged file found after start, e.g. a tool cache): the whole list. */
  'app.warnings': z.object({ warnings: z.array(AppWarningSchema) }),
  /**
   * Browser mode: events the host did not send because this page was not reading fast enough.
   * For `server.log`, `count` lines of `serverId` were dropped; for any other event the page
   * should reload what it shows.
   */
  /** The gateway's state, an agent, a session or the tool names agents see changed: the whole view. */
  'agents.changed': AgentsViewSchema,
  'bridge.dropped': z.object({ event: z.string(), serverId: z.string().optional(), count: z.number().int().positive() }),
  /** A server asks the person something (elicitation, sampling): shown as a dialog naming the server. */
  'ask.requested': AskViewSchema,
  /** The ask is no longer open (answered, expired, or withdrawn by the server or its connection). */
  'ask.closed': AskClosedSchema,
  /** A server's resources or templates changed (it said so, or it connected again): reload them with 'resources.list'. */
  'resources.changed': z.object({ serverId: z.string() }),
  /** A resource the app subscribed to changed on the server. */
  'resources.updated': z.object({ serverId: z.string(), uri: z.string(), at: z.number() }),
  /** A server's prompts changed (it said so, or it connected again): reload them with 'prompts.list'. */
  'prompts.changed': z.object({ serverId: z.string() }),
  /** Browser mode (issue 11): a sign-in page to open in a new tab (Electron opens it in the system browser itself). */
  'oauth.authorize': z.object({ serverId: z.string(), url: z.string().url() }),
  ...runEvents,
} as const satisfies Record<EventName, z.ZodType>;

export type Events = typeof events;
export type EventOf<E extends EventName> = z.output<Events[E]>;

export function isChannelName(name: unknown): name is ChannelName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(channels, name);
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}

// ── secret slots ──────────────────────────────────────────────────────────────────────────────

/** `auth.token`, `auth.clientSecret`, `auth.privateKey` (OAuth), `env.NAME` or `headers.NAME`. */
export const SECRET_SLOT = /^(auth\.token|auth\.clientSecret|auth\.privateKey|env\.[A-Za-z_][A-Za-z0-9_]*|headers\.[!#$%&'*+.^_`|~0-9A-Za-z-]+)$/;
