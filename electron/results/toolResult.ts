/**
 * The result of one tool call in one shape, whoever produced it: an MCP server (normalized by
 * `normalizeToolResult` below, which mcp/client.ts applies) or a local tool (tools/). It is the pipeline's currency — the harness passes it
 * on, checkpoints/ stores it, the app maps it to the contract — so it belongs to none of them and
 * every one of them imports it from here.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

/** One block of a result's content, as MCP defines it (text, image, audio, resource, link). */
type ContentBlock = CallToolResult['content'][number];

/** A tool result in one shape whatever the server sent: content, structured content, isError. */
export interface NormalizedToolResult {
  content: ContentBlock[];
  structuredContent: Record<string, unknown> | undefined;
  isError: boolean;
}

/** One shape for every result: old-style `toolResult` answers become a text block. */
export function normalizeToolResult(result: unknown): NormalizedToolResult {
  const r = (result ?? {}) as {
    content?: unknown;
    structuredContent?: unknown;
    isError?: unknown;
    toolResult?: unknown;
  };
  const content = Array.isArray(r.content)
    ? (r.content as NormalizedToolResult['content'])
    : r.toolResult !== undefined
      ? [{ type: 'text' as const, text: JSON.stringify(r.toolResult) }]
      : [];
  const structured =
    r.structuredContent && typeof r.structuredContent === 'object' && !Array.isArray(r.structuredContent)
      ? (r.structuredContent as Record<string, unknown>)
      : undefined;
  return { content, structuredContent: structured, isError: r.isError === true };
}
