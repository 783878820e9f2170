/**
 * Size limits that the contract and the browser-mode bridge must agree on.
 *
 * The bridge carries one contract call per WebSocket message, and the host refuses any message
 * larger than MAX_BRIDGE_FRAME_BYTES (it closes that socket with 1009). So every request the
 * contract accepts must fit in one message once serialized: JSON escaping grows a string (a
 * newline or quote takes 2 bytes, a control character 6, a non-ASCII character 2–3 in UTF-8).
 * The contract's own limits below are measured the way the frame carries them (UTF-8 bytes of
 * the JSON), so they hold over Electron IPC too, where no frame limit exists:
 *
 *   tools.call:  args ≤ MAX_TOOL_ARGS_BYTES (as JSON), plus short names → fits with room to spare.
 *   import.*:    content ≤ 1,000,000 characters → at most 6,000,000 bytes even if every character
 *                were escaped as \u00XX, plus at most 200 names → fits.
 *
 * A request that still does not fit (an import with thousands of large `inputs`, say) is refused
 * by the renderer before it is sent, with the code `request_too_large` (see BRIDGE_ERROR).
 */

/** The largest WebSocket message the browser-mode host accepts (and the renderer sends). */
export const MAX_BRIDGE_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * The largest `tools.call` arguments object, in UTF-8 bytes of its JSON. Above write_file's
 * 10 MiB content cap plus ordinary escaping, and well inside one bridge frame.
 */
export const MAX_TOOL_ARGS_BYTES = 12 * 1024 * 1024;

/** The longest import file the contract accepts, in characters. */
export const MAX_IMPORT_CONTENT_CHARS = 1_000_000;

const encoder = new TextEncoder();

/** The UTF-8 byte length of a string (what it takes on the wire). */
export function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

/** The UTF-8 byte length of a value's JSON (`undefined` and functions count as nothing). */
export function jsonByteLength(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : utf8Length(text);
}

/** "12 MiB", "980 KiB", "512 bytes": sizes as people read them in error messages. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

// ── what a server offers beside tools: resources, prompts ─────────────────────────────────────

/**
 * Resource contents and prompt messages as the GUI gets them (`resources.read`, `prompts.get`):
 * a text is cut after MAX_CONTENT_TEXT_BYTES; binary data (a blob, an image, audio) is carried
 * only up to MAX_CONTENT_BINARY_BYTES decoded — enough to preview an image or save a small file —
 * and is otherwise described by its type and size. One answer carries at most
 * MAX_CONTENT_VIEW_BYTES of such bodies in all, so it always fits one bridge frame.
 */
export const MAX_CONTENT_TEXT_BYTES = 1024 * 1024;
export const MAX_CONTENT_BINARY_BYTES = 2 * 1024 * 1024;
export const MAX_CONTENT_VIEW_BYTES = 8 * 1024 * 1024;

/**
 * A server's resources, resource templates or prompts as the app keeps them: listing follows
 * the server's cursors and stops after MAX_LISTED_ITEMS items or MAX_LISTED_BYTES of JSON (the
 * list then says it was cut), so a list always fits one bridge frame.
 */
export const MAX_LISTED_ITEMS = 5_000;
export const MAX_LISTED_BYTES = 4 * 1024 * 1024;
