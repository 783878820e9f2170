/**
 * Every error code that crosses the contract, and the typed details that go with them. Main
 * raises only these codes (each error class maps to one); the renderer switches on them, in one
 * place (`renderer/src/lib/describeError.ts`), and never reads meaning out of a message.
 * A code from a newer main that this renderer does not know is read as `unrecognized`.
 */
import { z } from 'zod';

export const ERROR_CODES = [
  // The contract and its transports
  'invalid_request',
  'validation',
  'internal',
  'unknown_channel',
  'invalid_frame',
  'request_too_large',
  'duplicate_request_id',
  'request_too_deep',
  'forbidden_sender',
  // miniharness serve: this person's role does not allow the channel (electron/serve/roles.ts)
  'role_forbidden',
  // The People page: a person the configuration file names (a floor it cannot lower); the last admin; a token name in use
  'person_configured',
  'last_admin',
  'token_name_taken',
  'ipc_failed',
  // Seen only by the renderer (its link to main)
  'disconnected',
  'unauthorized',
  'bad_response',
  'unrecognized',
  // App services
  'not_found',
  'still_running',
  'duplicate_call',
  'args_redacted',
  'not_rerunnable',
  'not_replayable',
  'stale_approval',
  'stale_ask',
  'record_too_large',
  'import_malformed',
  'import_unrecognized',
  'import_unknown_server',
  'import_too_large',
  'import_unreadable',
  'workspace_overlaps_data',
  // The agent gateway
  'gateway_loop',
  'agent_name_taken',
  // "Add to …" (electron/core/agentConfigFiles.ts): a client's config file it cannot read or parse (left
  // untouched); an Undo refused because the file changed since; a token that is not that agent's
  'agent_config_unreadable',
  'agent_config_changed',
  'agent_token_mismatch',
  // Secrets
  'secret_missing',
  'secret_storage_unavailable',
  'secret_undecryptable',
  // MCP servers
  'not_initialized',
  'closed',
  'timeout',
  'cancelled',
  'auth',
  'command_not_found',
  // run_command: the program exists, but in a folder its sandbox hides (details.hiddenBySandbox); it was not run
  'command_hidden_by_sandbox',
  // A stdio server's sandbox cannot run here (details.sandbox says why); it was not started
  'sandbox_unavailable',
  'unreachable',
  'server_exited',
  'protocol',
  'not_an_mcp_server',
  'config',
  'remote',
  'unavailable',
  'unknown_tool',
  'transport',
  'result_too_large',
  'not_offered',
  'not_supported',
  // OAuth: the server needs a person to sign in; an OAuth exchange failed
  'sign_in_required',
  'oauth_failed',
  // The server needs the person to open a link before it runs the request (MCP -32042)
  'url_elicitation_required',
  // Permissions and approvals
  'permission_denied',
  'approval_cancelled',
  'rules_file_corrupt',
  // Local tools and their file guard
  'invalid_arguments',
  'path_outside_roots',
  'no_roots',
  'invalid_path',
  'path_not_found',
  'path_excluded',
  'path_changed',
  'hard_linked_file',
  'parent_missing',
  // Checkpoints, storage, traces
  'arguments_mismatch',
  'in_progress',
  'failed',
  'lease_lost',
  // The tool ran (it may have acted) but its result could not be stored: the record stays "result unknown"
  'result_not_recorded',
  'not_resolvable',
  'invalid_result',
  'schema_too_new',
  'migration_invalid',
  'schema_not_migrated',
  'invalid_cursor',
  'invalid_query',
  'invalid_event',
  'trace_closed',
  'trace_not_found',
  'interrupted',
  // PostgreSQL storage (MINIHARNESS_DATABASE_URL): the server cannot be reached; it refused a statement (its SQLSTATE rides along)
  'database_unreachable',
  'database_refused',
  // The person's models and agent runs (README “Run your own model”)
  'model_auth_failed',
  'model_rate_limited',
  'model_server_error',
  'model_bad_request',
  'model_unreachable',
  'model_stream_cut',
  'model_cancelled',
  'not_resumable',
  // MCP Apps (shared/contract/apps.ts): the tool declares no app; its ui:// resource is not an app's HTML; an app asked for a tool it may not call
  'no_app',
  'app_resource_invalid',
  'app_call_refused',
  // An app called tools faster than its rate (electron/apps/appCallRate.ts)
  'app_rate_limited',
  // The MCP Registry catalog (issue 30)
  'registry_pagination_loop',
  'package_hash_mismatch',
  'runtime_missing',
] as const;

export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

const CODE_SET: ReadonlySet<string> = new Set(ERROR_CODES);
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

/**
 * Why a server could not be reached or used: what failed, and where. `host`/`port` name the
 * endpoint for network kinds; `httpStatus` for `http_status`; `exitCode`/`signal` for `exited`;
 * `errno` is the system's own code (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED, …) when there is one;
 * `sign_in`: an HTTP 401 whose challenge asks for an OAuth sign-in (not a token).
 */
const CAUSE_KINDS = [
  'connection_refused',
  'dns',
  'tls',
  'timeout',
  'reset',
  'network',
  'blocked_port',
  'http_status',
  'exited',
  'protocol',
  'sign_in',
] as const;
const CauseKindSchema = z.enum(CAUSE_KINDS);

export const ErrorCauseSchema = z.object({
  kind: CauseKindSchema,
  host: z.string().optional(),
  port: z.number().int().nonnegative().optional(),
  errno: z.string().optional(),
  httpStatus: z.number().int().optional(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
});
export type ErrorCause = z.infer<typeof ErrorCauseSchema>;

/**
 * Who or what refused a tool call. `rule`: a stored rule; `default`: the default policy;
 * `guardrail`: a safety check (a command or path guard); `person`: the person answered Deny;
 * `approval_timeout`: nobody answered in time; `approval_error`: the request could not be shown;
 * `cancelled`: the caller cancelled while it waited for approval.
 */
const DENIED_BY = [
  'rule',
  'default',
  'guardrail',
  'person',
  'approval_timeout',
  'approval_error',
  'cancelled',
] as const;
const DenialSchema = z.object({
  by: z.enum(DENIED_BY),
  toolName: z.string(),
  serverId: z.string(),
  /** The decision level: DENY (nobody was asked) or ASK (the approval did not allow it). */
  level: z.enum(['ALLOW', 'ASK', 'DENY']),
  /** The rule that decided, when `by` is `rule`. */
  ruleId: z.string().optional(),
  /** Main's sentence for people (the rule's description, the guard's finding); shown, never parsed. */
  reason: z.string(),
  /** How long the approval waited, when `by` is `approval_timeout`. */
  timeoutMs: z.number().int().nonnegative().optional(),
  /**
   * An earlier call with the same callId is recorded: it ran (`completed`), or it started and its
   * result is unknown (`started`). This call did not run again — but "nothing ran" would be false.
   */
  keyRecorded: z.enum(['completed', 'started']).optional(),
});
export type Denial = z.infer<typeof DenialSchema>;

/**
 * Why a server needs a sign-in, or why an OAuth exchange failed.
 * `sign_in_required`: `no_token` (never signed in), `token_rejected` (the token was refused and
 * could not be refreshed), `insufficient_scope` (a request needs more scopes: `scope`),
 * `not_configured` (the server asks for OAuth but is not set up for it), `signed_out`.
 * `oauth_failed`: `resource_mismatch` (the server's metadata names another resource: refused),
 * `discovery_failed`, `registration_failed`, `token_request_failed` (`oauthError` says what the
 * authorization server answered), `denied` (the person or server refused the sign-in),
 * `sign_in_timeout`, `step_up_refused` (more scopes were granted and still refused),
 * `redirect_unavailable` (the configured loopback redirect port is taken), `issuer_mismatch`
 * (the authorization response named another authorization server, RFC 9207: refused before the
 * code was exchanged).
 */
const OAUTH_REASONS = [
  'no_token',
  'token_rejected',
  'insufficient_scope',
  'not_configured',
  'signed_out',
  'resource_mismatch',
  'discovery_failed',
  'registration_failed',
  'token_request_failed',
  'denied',
  'sign_in_timeout',
  'step_up_refused',
  'redirect_unavailable',
  'issuer_mismatch',
] as const;
const OAuthDetailSchema = z.object({
  reason: z.enum(OAUTH_REASONS),
  /** The scopes a request needs (space-separated), when the server said. */
  scope: z.string().optional(),
  /** The OAuth error code the authorization server answered (`invalid_client`, `access_denied`, …). */
  oauthError: z.string().optional(),
  /** `resource_mismatch`: the resource the server's metadata named instead. */
  resource: z.string().optional(),
});
export type OAuthDetail = z.infer<typeof OAuthDetailSchema>;

/**
 * `url_elicitation_required`: a link the server asks the person to open (an http or https URL;
 * `host` shown beside it), with the server's words for it. Opened only when the person chooses to.
 */
const ElicitationLinkSchema = z.object({
  url: z.string().max(8_192),
  host: z.string().max(300),
  message: z.string().max(2_000).optional(),
});
export type ElicitationLink = z.infer<typeof ElicitationLinkSchema>;

/**
 * Why a stdio server's sandbox (sandbox-runtime) cannot run: the platform has none
 * (`platform_unsupported`; Windows: `windows_per_server_grants`, per-server grants are not
 * supported there), a program it needs is missing (`bubblewrap_missing`, `socat_missing`,
 * `ripgrep_missing`), the library's own check failed (`dependency_failed`), a sandboxed probe
 * failed (`sandbox_failed`: user namespaces refused, …), or the server's configuration cannot be
 * given to it (`argument_unquotable`: a NUL; `host_invalid`: a host the library refuses).
 */
const SANDBOX_REASONS = [
  'platform_unsupported',
  'windows_per_server_grants',
  'bubblewrap_missing',
  'socat_missing',
  'ripgrep_missing',
  'dependency_failed',
  'sandbox_failed',
  'argument_unquotable',
  'host_invalid',
] as const;
export type SandboxReason = (typeof SANDBOX_REASONS)[number];
export const SandboxReasonSchema = z.enum(SANDBOX_REASONS);

export const ErrorDetailsSchema = z.object({
  /** Field path → messages, for forms. */
  fieldErrors: z.record(z.string(), z.array(z.string())).optional(),
  /** The trace of the failed call, for "see trace". */
  traceId: z.string().optional(),
  /** The server the error concerns. */
  serverId: z.string().optional(),
  /** `request_too_large`, `result_too_large`, `record_too_large`: the limit passed, and (where known) the size refused, in bytes. */
  limitBytes: z.number().int().nonnegative().optional(),
  sizeBytes: z.number().int().nonnegative().optional(),
  /** `request_too_deep`: the deepest nesting of objects and arrays accepted. */
  limitDepth: z.number().int().nonnegative().optional(),
  /** Whether trying the same thing again may succeed without changing anything. */
  retryable: z.boolean().optional(),
  /** What failed underneath (a network, TLS or process failure), and where. */
  cause: ErrorCauseSchema.optional(),
  /** `permission_denied`, `approval_cancelled`: who refused, and why. */
  denial: DenialSchema.optional(),
  /** `remote`: the JSON-RPC error code the server answered with. */
  rpcCode: z.number().int().optional(),
  /** `sign_in_required`, `oauth_failed`: what the sign-in needs or what failed (never a token). */
  oauth: OAuthDetailSchema.optional(),
  /** `url_elicitation_required`: the links to open before the call can run (at most 10). */
  links: z.array(ElicitationLinkSchema).max(10).optional(),
  /** `sandbox_unavailable`: why the server's sandbox cannot run. */
  sandbox: z.object({ reason: SandboxReasonSchema }).optional(),
  /** `command_hidden_by_sandbox`: the program, the folder of it the sandbox hides, and which sandbox. */
  hiddenBySandbox: z
    .object({ program: z.string(), folder: z.string(), sandbox: z.enum(['bwrap', 'sandbox-exec']) })
    .optional(),
  /**
   * `server_exited`, sandboxed: what its sandbox hid that its stderr names — the narrowest change
   * to offer ("allow reading ~/.config/foo"), never the app's data folder.
   */
  sandboxDenied: z.object({ read: z.string().max(4_096) }).optional(),
});
export type ErrorDetails = z.infer<typeof ErrorDetailsSchema>;
