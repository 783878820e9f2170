/**
 * The contract's `apps.*` part: MCP Apps (`io.modelcontextprotocol/ui`), tools that bring their
 * own interface. A tool view's `app` (tools.ts, from `_meta.ui`) names the app's `ui://` resource;
 * the renderer loads it with `apps.load` and renders it sandboxed; what the app asks of its server
 * — `tools/call`, `resources/read` — the renderer relays with `apps.callTool` / `apps.readResource`,
 * and main runs it through the pipeline as the caller "<server name>'s app" (appCallerId):
 * permission, approval, checkpoint, trace. Main enforces the extension's visibility: an app may
 * call only tools of its own server whose visibility includes `app`.
 *
 * History and replay need nothing more: a record names its tool and server, so the tool view's
 * `app` plus the stored result drive the app again (and nothing runs).
 */
import { McpUiResourceCspSchema, McpUiResourcePermissionsSchema } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpUiResourceCsp, McpUiResourcePermissions } from '@modelcontextprotocol/ext-apps/app-bridge';
import { z } from 'zod';
import { ServerIdSchema } from '../serverConfig.js';
import type { DomainChannels } from './common.js';
import { JsonObject, channel } from './common.js';
import { CallIdSchema } from './callKey.js';
import { CallOutcomeSchema, ToolCallRequestSchema } from './tools.js';

export * from './toolApp.js';

/** The largest app HTML main hands over, in UTF-8 bytes (`result_too_large` past it): one bridge frame with room. */
export const MAX_APP_HTML_BYTES = 4 * 1024 * 1024;
/** The most an app's `resources/read` may return through `apps.readResource` (text and base64 blobs, UTF-8 bytes). */
export const MAX_APP_RESOURCE_BYTES = 8 * 1024 * 1024;

/**
 * One CSP source the app asked for (`_meta.ui.csp`): a scheme (http, https, ws, wss), a host
 * (optionally `*.` for subdomains) and an optional port — nothing else, so it cannot add a
 * directive or a keyword to the policy. Main drops any other entry (with a warning).
 */
const CSP_SOURCE = /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::\d{1,5})?$/;

/** The CSP fields of the MCP Apps schema (the ext-apps package's McpUiResourceCsp): connect, resource, frame, base-uri domains. */
export type AppCspKey = keyof McpUiResourceCsp;
export const APP_CSP_KEYS = Object.keys(McpUiResourceCspSchema.shape) as AppCspKey[];
/**
 * One source as the MCP Apps schema types it (a string), narrowed to CSP_SOURCE: the package's
 * schema takes any string, and a source is pasted into the app's policy, so ours does more.
 */
export const CspSourceSchema = McpUiResourceCspSchema.shape.connectDomains.unwrap().element.max(300).regex(CSP_SOURCE);
const CspSources = z.array(CspSourceSchema).max(64).optional();

/** The app's CSP wishes (McpUiResourceCsp); absent or empty = the restrictive default (no network, no frames, base-uri 'self'). */
const AppCspSchema = z.object(
  Object.fromEntries(APP_CSP_KEYS.map((key) => [key, CspSources])) as Record<AppCspKey, typeof CspSources>,
);
export type AppCsp = McpUiResourceCsp;

/** The browser features of the MCP Apps schema (McpUiResourcePermissions) the app may ask for. */
type AppPermissionKey = keyof McpUiResourcePermissions;
export const APP_PERMISSION_KEYS = Object.keys(McpUiResourcePermissionsSchema.shape) as AppPermissionKey[];
const AskedPermission = z.boolean().optional();
/** Which of them the app asks for (the host may grant them with the iframe's `allow`). */
const AppPermissionsSchema = z.object(
  Object.fromEntries(APP_PERMISSION_KEYS.map((key) => [key, AskedPermission])) as Record<
    AppPermissionKey,
    typeof AskedPermission
  >,
);
export type AppPermissions = z.infer<typeof AppPermissionsSchema>;

/** An app's HTML (`text/html;profile=mcp-app`) with what its resource's `_meta.ui` asks of the host. */
const AppResourceViewSchema = z.object({
  resourceUri: z.string(),
  html: z.string(),
  csp: AppCspSchema,
  permissions: AppPermissionsSchema.optional(),
  /** The app prefers a visible border and background (absent: the host decides). */
  prefersBorder: z.boolean().optional(),
  /** The trace of the read. */
  traceId: z.string(),
  /** What of the resource's `_meta.ui` was ignored (a CSP source that is not one, …), in words. */
  warnings: z.array(z.string()),
});
export type AppResourceView = z.infer<typeof AppResourceViewSchema>;

/** One item of a resource as MCP sends it (text or base64 blob), for the app itself. */
const AppResourceContentSchema = z.looseObject({
  uri: z.string(),
  mimeType: z.string().optional(),
  text: z.string().optional(),
  blob: z.string().optional(),
  _meta: JsonObject.optional(),
});
const AppReadResultSchema = z.object({ contents: z.array(AppResourceContentSchema), traceId: z.string() });
export type AppReadResult = z.infer<typeof AppReadResultSchema>;

const UiUri = z
  .string()
  .max(8192)
  .regex(/^ui:\/\/./, 'must be a ui:// URI');
const ResourceUri = z.string().min(1).max(8192);
const ToolName = z.string().min(1).max(200);

const AppCallToolRequestSchema = z
  .object({
    serverId: ServerIdSchema,
    /** The tool whose app this is (the app's own tool): the app belongs to its server. */
    toolName: ToolName,
    /** The tool the app calls: of the same server, with `app` in its visibility. */
    name: ToolName,
    args: ToolCallRequestSchema.shape.args,
    /** A fresh id per call, made by the host page (re-sent: replays, as `tools.call`); `tools.cancel` cancels it. */
    callId: CallIdSchema,
    timeoutMs: z.number().int().min(100).max(3_600_000).optional(),
    /** The rendered frame making the call (made by the host page per frame): its calls are rate-limited together (electron/apps/appCallRate.ts). */
    instanceId: z.string().min(1).max(100).optional(),
  })
  .strict();

/**
 * The call whose result the app shows (the call panel's call, a History record or its replay):
 * reading the app's own page is implied by that call's decision. Absent session: the GUI's own.
 * Any key a record may have (agents choose theirs); an unknown one just means "no call".
 */
const AppPageCallSchema = z
  .object({ sessionId: z.string().min(1).max(200).optional(), callId: z.string().min(1).max(200) })
  .strict();

export const mcpAppChannels = {
  /**
   * Reads a `ui://` resource of the server (checked to be `text/html;profile=mcp-app`), decided and
   * traced as "<server>'s app"; for a call (`forCall`), where the rules would ask, that call's decision answers.
   */
  'apps.load': channel(
    z.object({ serverId: ServerIdSchema, resourceUri: UiUri, forCall: AppPageCallSchema.optional() }).strict(),
    AppResourceViewSchema,
  ),
  /** The app's `tools/call`: through the whole pipeline as "<server>'s app"; the same outcome as `tools.call`. */
  'apps.callTool': channel(AppCallToolRequestSchema, CallOutcomeSchema),
  /** The app's `resources/read` of its own server: decided and traced as "<server>'s app"; MCP's own shape. */
  'apps.readResource': channel(
    z.object({ serverId: ServerIdSchema, toolName: ToolName, uri: ResourceUri }).strict(),
    AppReadResultSchema,
  ),
} as const satisfies DomainChannels;

// ── the app as a caller ────────────────────────────────────────────────────────────────────────

const APP_CALLER_SUFFIX = "'s app";

/**
 * The caller id of a server's app (approvals, History, Traces): "<server name>'s app". No agent
 * can be named so (agent names take no apostrophe, shared/agents.ts), and an agent run's caller
 * ends in ")" — so `isAppCaller` tells it apart from the person, agents and runs.
 */
export function appCallerId(serverName: string): string {
  return `${serverName}${APP_CALLER_SUFFIX}`;
}

export function isAppCaller(userId: string): boolean {
  return userId.endsWith(APP_CALLER_SUFFIX);
}
