/**
 * A tool's MCP App declaration (`_meta.ui`, the `io.modelcontextprotocol/ui` extension), read
 * and checked: `resourceUri` (a `ui://` URI; the deprecated flat key `_meta["ui/resourceUri"]`
 * is read too, as the extension asks of hosts) and `visibility` (`model`, `app`; default both).
 *
 * Invariant: a malformed declaration never fails a listing — it is ignored as a whole (the tool
 * is a plain tool, seen by everyone) and `problem` says why, for the server's log.
 */
import type { ToolApp } from '../../shared/contract/toolApp.js';
import { AppVisibilitySchema } from '../../shared/contract/toolApp.js';

const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';
const MAX_URI_CHARS = 8192;
const DEFAULT_VISIBILITY: ToolApp['visibility'] = ['model', 'app'];

export interface ToolUiReading {
  /** The declaration, when there is a well-formed one. */
  app?: ToolApp;
  /** Why a declaration present was ignored. */
  problem?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function uriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'resourceUri is not a string';
  if (!uri.startsWith('ui://') || uri.length <= 'ui://'.length)
    return `resourceUri ${JSON.stringify(uri.slice(0, 200))} is not a ui:// URI`;
  if (uri.length > MAX_URI_CHARS) return `resourceUri is longer than ${MAX_URI_CHARS} characters`;
  return undefined;
}

/** Reads a tool's `_meta` (anything a server sent). */
export function readToolUi(meta: unknown): ToolUiReading {
  if (!isObject(meta)) return {};
  const ui = meta.ui;
  const legacyUri = meta[LEGACY_RESOURCE_URI_KEY];
  if (ui === undefined && legacyUri === undefined) return {};
  if (ui !== undefined && !isObject(ui)) return { problem: '_meta.ui is not an object' };
  const uri = (ui as Record<string, unknown> | undefined)?.resourceUri ?? legacyUri;
  if (uri !== undefined) {
    const problem = uriProblem(uri);
    if (problem) return { problem };
  }
  let visibility = DEFAULT_VISIBILITY;
  const declared = (ui as Record<string, unknown> | undefined)?.visibility;
  if (declared !== undefined) {
    const parsed = AppVisibilitySchema.array().max(2).safeParse(declared);
    if (!parsed.success) return { problem: 'visibility must be a list of "model" and "app"' };
    visibility = [...new Set(parsed.data)];
  }
  return { app: { ...(uri !== undefined ? { resourceUri: uri as string } : {}), visibility } };
}

/** Whether agents and the model may see and call the tool (no declaration: yes). */
export function visibleToModel(app: ToolApp | undefined): boolean {
  return !app || app.visibility.includes('model');
}

/** Whether its server's app may call the tool (no declaration: yes — the extension's default). */
export function callableByApp(app: ToolApp | undefined): boolean {
  return !app || app.visibility.includes('app');
}

/** `{ app }` for a tool with a well-formed declaration, `{}` otherwise: spread into a tool's info. */
export function appOf(tool: { _meta?: unknown }): { app?: ToolApp } {
  const { app } = readToolUi(tool._meta);
  return app ? { app } : {};
}

/** The `_meta` the gateway lists a tool's app with: the checked declaration, under both keys hosts read. */
export function gatewayUiMeta(resourceUri: string, visibility: ToolApp['visibility']): Record<string, unknown> {
  return { ui: { resourceUri, visibility: [...visibility] }, [LEGACY_RESOURCE_URI_KEY]: resourceUri };
}
