/**
 * DescriptorRedaction's rules on their own: string values redacted, keys and identifiers kept (a
 * JSON Schema's property names and `required` list), the input returned as it is when nothing
 * changed; and the tool map redacting again what it keeps once a secret becomes known later
 * (leaving out a tool whose name or schema keys hold it).
 */
import { describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/client';
import { DescriptorRedaction } from '../../electron/mcp/descriptorRedaction.js';
import { ToolMap } from '../../electron/mcp/registry/toolMap.js';
import { KnownSecrets } from '../../electron/secrets/redaction.js';

const SECRET = 'sk-live-0123456789';

function tool(text: string): Tool {
  return {
    name: 'search',
    description: `Uses ${text}`,
    inputSchema: {
      type: 'object',
      properties: { [text]: { type: 'string', enum: [text, 'plain'], description: text } },
      required: [text],
    },
  };
}

describe('descriptor redaction', () => {
  it('redacts string values of a schema, never its keys or the property names it requires', () => {
    const secrets = new KnownSecrets();
    secrets.add(SECRET);
    const out = new DescriptorRedaction(secrets).tool(tool(SECRET));
    expect(out.description).toBe('Uses [redacted]');
    expect(out.inputSchema).toEqual({
      type: 'object',
      properties: { [SECRET]: { type: 'string', enum: ['[redacted]', 'plain'], description: '[redacted]' } },
      required: [SECRET],
    });
  });

  it('returns the same objects when no secret occurs', () => {
    const secrets = new KnownSecrets();
    secrets.add(SECRET);
    const tools = [tool('nothing secret')];
    expect(new DescriptorRedaction(secrets).tools(tools)).toBe(tools);
  });

  it('the tool map redacts what it keeps again once a secret becomes known after the listing; a tool keyed by it is then left out', () => {
    const secrets = new KnownSecrets();
    const map = new ToolMap(() => 0, new DescriptorRedaction(secrets));
    const other: Tool = {
      name: 'other',
      description: `Uses ${SECRET}`,
      inputSchema: { type: 'object', properties: { q: { type: 'string', description: SECRET } } },
    };
    map.set('srv', { tools: [tool(SECRET), other], fromCache: false });
    expect(map.allTools().map((t) => t.tool.description)).toEqual([`Uses ${SECRET}`, `Uses ${SECRET}`]);
    secrets.add(SECRET);
    expect(map.allTools().map((t) => t.tool.description)).toEqual(['Uses [redacted]']);
    expect(map.resolve('other')?.tool.inputSchema.properties).toEqual({
      q: { type: 'string', description: '[redacted]' },
    });
    // Its schema names a property by the secret: it cannot be redacted without breaking its calls.
    expect(map.resolve('search')).toBeUndefined();
  });
});
