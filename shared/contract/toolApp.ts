/**
 * MCP Apps (`io.modelcontextprotocol/ui`) as a tool declares one: the extension's constants and
 * the `app` a tool view carries (taken from the tool's `_meta.ui` by main, electron/mcp/toolUi.ts).
 * Zod-only and free of other contract imports, so tools.ts and apps.ts can both build on it.
 */
import { z } from 'zod';

/** The extension's id in the capabilities' `extensions` (client and server). */
export const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** The MIME type of an app's HTML resource (the one this host renders). */
export const APP_HTML_MIME_TYPE = 'text/html;profile=mcp-app';

/** Who may call a tool: `model` — agents and the model's tool list; `app` — its own server's app. */
export const AppVisibilitySchema = z.enum(['model', 'app']);

/**
 * A tool's `_meta.ui`: its app's `ui://` resource, and who may call the tool (default both).
 * `resourceUri` absent: the tool has no interface of its own — typically a helper its server's
 * app calls (`visibility: ["app"]`), hidden from agents and the model.
 */
export const ToolAppSchema = z.object({
  resourceUri: z.string().optional(),
  visibility: z.array(AppVisibilitySchema),
});
export type ToolApp = z.infer<typeof ToolAppSchema>;
