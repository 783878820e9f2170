import { describe, expect, it } from 'vitest';
import { toAnthropicTools, toOpenAITools } from '../../electron/mcp/llmAdapter.js';
import type { RegisteredTool } from '../../electron/mcp/registry.js';

const tools: RegisteredTool[] = [
  {
    name: 'echo',
    serverId: 'a',
    priority: 0,
    tool: {
      name: 'echo',
      description: 'Echoes.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  },
  { name: 'fs.read/file', serverId: 'b', priority: 0, tool: { name: 'fs.read/file', inputSchema: { type: 'object' } } },
  {
    name: 'fs_read_file',
    serverId: 'c',
    priority: 0,
    tool: { name: 'fs_read_file', title: 'Read a file', inputSchema: { type: 'object' } },
  },
];

describe('LLM adapter', () => {
  it('produces OpenAI function tools with valid, unique names mapped back to MCP tools', () => {
    const { definitions, toolFor } = toOpenAITools(tools);
    expect(definitions[0]).toEqual({
      type: 'function',
      function: {
        name: 'echo',
        description: 'Echoes.',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
    });
    expect(definitions.map((d) => d.function.name)).toEqual(['echo', 'fs_read_file', 'fs_read_file_2']);
    for (const d of definitions) expect(d.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(toolFor.get('fs_read_file')?.serverId).toBe('b');
    expect(toolFor.get('fs_read_file_2')?.serverId).toBe('c');
    expect(definitions[1]?.function.parameters).toEqual({ type: 'object', properties: {} });
  });

  it('produces Anthropic tools with input_schema and a description fallback', () => {
    const { definitions } = toAnthropicTools(tools);
    expect(definitions[2]).toEqual({
      name: 'fs_read_file_2',
      description: 'Read a file',
      input_schema: { type: 'object', properties: {} },
    });
    expect(definitions[1]?.description).toBe('Tool fs.read/file of server b');
  });

  it('keeps long names within 64 characters and unique', () => {
    const long = 'x'.repeat(80);
    const { definitions } = toOpenAITools([
      { name: long, serverId: 'a', priority: 0, tool: { name: long, inputSchema: { type: 'object' } } },
      { name: `${long}y`, serverId: 'b', priority: 0, tool: { name: `${long}y`, inputSchema: { type: 'object' } } },
    ]);
    expect(definitions.map((d) => d.function.name.length)).toEqual([64, 64]);
    expect(new Set(definitions.map((d) => d.function.name)).size).toBe(2);
  });
});
