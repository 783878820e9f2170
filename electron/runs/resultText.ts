/**
 * A tool result as the model is told it: the text blocks, other blocks named by kind (the model
 * gets no binary), the structured content when there is no text — bounded, so one huge result
 * cannot blow the run's token budget in one turn.
 */
import type { NormalizedToolResult } from '../results/toolResult.js';

const MAX_RESULT_CHARS = 50_000;

export function resultText(result: NormalizedToolResult): string {
  const parts = result.content.map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'image':
      case 'audio':
        return `[${block.type} ${block.mimeType}]`;
      case 'resource':
        return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
      case 'resource_link':
        return `[resource link ${block.uri}]`;
      default:
        return '[content]';
    }
  });
  if (!parts.length && result.structuredContent) parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join('\n');
  return text.length > MAX_RESULT_CHARS
    ? `${text.slice(0, MAX_RESULT_CHARS)}\n[truncated: ${text.length - MAX_RESULT_CHARS} more characters]`
    : text;
}
