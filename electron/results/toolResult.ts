/**
 * The result of one tool call in one shape, whoever produced it: an MCP server (normalized by
 * mcp/client.ts) or a local tool (tools/). It is the pipeline's currency — the harness passes it
 * on, checkpoints/ stores it, the app maps it to the contract — so it belongs to none of them and
 * every one of them imports it from here.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

/** One block of a result's content, as MCP defines it (text, image, audio, resource, link). */
export type ContentBlock = CallToolResult['content'][number];

/** A tool result in one shape whatever the server sent: content, structured content, isError. */
export interface NormalizedToolResult {
  content: ContentBlock[];
  structuredContent: Record<string, unknown> | undefined;
  isError: boolean;
}
