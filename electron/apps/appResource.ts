/**
 * An MCP App's HTML as the renderer gets it (`apps.load`): the `ui://` resource's content item
 * (the one with the URI asked for, else the first), checked to be `text/html;profile=mcp-app`,
 * text or base64 — at most MAX_APP_HTML_BYTES — with what its `_meta.ui` asks of the host: the
 * CSP sources, the browser permissions, the border preference. The content item's `_meta.ui`
 * wins over the resources/list entry's (the extension's rule).
 *
 * The fields are the MCP Apps schema's (the ext-apps package's McpUiResourceCsp and
 * McpUiResourcePermissions, through shared/contract/apps.ts). Invariant: nothing the server wrote
 * reaches the host's policy unchecked — a CSP source must be a bare scheme://host[:port]
 * (CspSourceSchema), anything else is dropped and named in `warnings`.
 */
import type { ReadResourceResult } from '@modelcontextprotocol/client';
import type { AppCsp, AppPermissions, AppResourceView } from '../../shared/contract/apps.js';
import { APP_CSP_KEYS, APP_PERMISSION_KEYS, CspSourceSchema, MAX_APP_HTML_BYTES } from '../../shared/contract/apps.js';
import { APP_HTML_MIME_TYPE } from '../../shared/contract/toolApp.js';
import { formatBytes, utf8Length } from '../../shared/limits.js';
import { AppsError } from './errors.js';

const MAX_SOURCES = 64;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `text/html; profile=mcp-app` and `TEXT/HTML;profile=mcp-app` are the same type. */
export function isAppMimeType(mimeType: unknown): boolean {
  return typeof mimeType === 'string' && mimeType.toLowerCase().replace(/\s+/g, '') === APP_HTML_MIME_TYPE;
}

function uiMetaOf(meta: unknown): Record<string, unknown> | undefined {
  return isObject(meta) && isObject(meta.ui) ? meta.ui : undefined;
}

function cspOf(ui: Record<string, unknown> | undefined, warnings: string[]): AppCsp {
  const csp: AppCsp = {};
  if (ui?.csp === undefined) return csp;
  if (!isObject(ui.csp)) {
    warnings.push('_meta.ui.csp is not an object: the restrictive default applies');
    return csp;
  }
  for (const key of APP_CSP_KEYS) {
    const sources = ui.csp[key];
    if (sources === undefined) continue;
    if (!Array.isArray(sources)) {
      warnings.push(`csp.${key} is not a list: ignored`);
      continue;
    }
    const kept: string[] = [];
    for (const source of sources) {
      if (CspSourceSchema.safeParse(source).success && kept.length < MAX_SOURCES) kept.push(source as string);
      else
        warnings.push(
          `csp.${key}: ${JSON.stringify(typeof source === 'string' ? source.slice(0, 100) : source)?.slice(0, 120)} is not a scheme://host[:port] source (or one too many): ignored`,
        );
    }
    csp[key] = kept;
  }
  return csp;
}

function permissionsOf(ui: Record<string, unknown> | undefined): AppPermissions | undefined {
  if (!isObject(ui?.permissions)) return undefined;
  const asked = ui.permissions;
  const permissions: AppPermissions = {};
  for (const key of APP_PERMISSION_KEYS) if (isObject(asked[key]) || asked[key] === true) permissions[key] = true;
  return Object.keys(permissions).length > 0 ? permissions : undefined;
}

function htmlOf(item: Record<string, unknown>, resourceUri: string): string {
  let html: string;
  if (typeof item.text === 'string') html = item.text;
  else if (typeof item.blob === 'string') {
    // Checked before decoding: base64 is 4 characters per 3 bytes.
    if ((item.blob.length * 3) / 4 > MAX_APP_HTML_BYTES + 3)
      throw tooLarge(resourceUri, Math.floor((item.blob.length * 3) / 4));
    html = Buffer.from(item.blob, 'base64').toString('utf8');
  } else throw new AppsError('app_resource_invalid', `${resourceUri} has neither text nor blob content.`);
  const size = utf8Length(html);
  if (size > MAX_APP_HTML_BYTES) throw tooLarge(resourceUri, size);
  return html;
}

function tooLarge(resourceUri: string, sizeBytes: number): AppsError {
  return new AppsError(
    'result_too_large',
    `The app ${resourceUri} is ${formatBytes(sizeBytes)}; the limit is ${formatBytes(MAX_APP_HTML_BYTES)}.`,
    { limitBytes: MAX_APP_HTML_BYTES, sizeBytes },
  );
}

/**
 * The view of a read of `resourceUri`. `listedMeta`: the `_meta` of its resources/list entry,
 * the fallback for what the content item's own `_meta.ui` does not say.
 */
export function appResourceView(
  resourceUri: string,
  result: ReadResourceResult,
  traceId: string,
  listedMeta?: unknown,
): AppResourceView {
  const items = result.contents as unknown as Array<Record<string, unknown>>;
  const item = items.find((c) => c.uri === resourceUri) ?? items[0];
  if (!item) throw new AppsError('app_resource_invalid', `${resourceUri} came back empty.`);
  if (!isAppMimeType(item.mimeType)) {
    throw new AppsError(
      'app_resource_invalid',
      `${resourceUri} is ${typeof item.mimeType === 'string' ? JSON.stringify(item.mimeType.slice(0, 100)) : 'of no stated type'}, not ${APP_HTML_MIME_TYPE}: it is not an app.`,
    );
  }
  const html = htmlOf(item, resourceUri);
  const ui = uiMetaOf(item._meta) ?? uiMetaOf(listedMeta);
  const warnings: string[] = [];
  const permissions = permissionsOf(ui);
  return {
    resourceUri,
    html,
    csp: cspOf(ui, warnings),
    ...(permissions ? { permissions } : {}),
    ...(typeof ui?.prefersBorder === 'boolean' ? { prefersBorder: ui.prefersBorder } : {}),
    traceId,
    warnings,
  };
}
