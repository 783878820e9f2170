import { createRequire } from 'node:module';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import { MCPRequestTimeout } from '../../electron/mcp/errors.js';
import type { ProgressUpdate } from '../../electron/mcp/types.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';
import { testSandboxes } from '../helpers/sandboxes.js';

// The reference server of the MCP project, over stdio (its HTTP mode listens on all interfaces).
const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('MCPClient against @modelcontextprotocol/server-everything (stdio)', () => {
  const client = new MCPClient(
    StdioServerConfigSchema.parse({
      id: 'everything',
      name: 'Everything',
      transport: 'stdio',
      command: process.execPath,
      args: [entry, 'stdio'],
      cwd: PROJECT_ROOT,
      timeoutMs: 15_000,
    }),
    { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes() },
  );

  beforeAll(async () => {
    await client.initialize();
  });
  afterAll(async () => {
    await client.close();
  });

  it('negotiates the current protocol and reports what the server offers', () => {
    const info = client.negotiated;
    expect(info?.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(info?.serverInfo.name).toMatch(/everything/i);
    expect(Object.keys(info?.capabilities ?? {})).toEqual(
      expect.arrayContaining(['tools', 'resources', 'prompts', 'logging']),
    );
  });

  it('lists its tools and calls text, structured and image tools with normalized results', async () => {
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-structured-content', 'get-tiny-image']));
    expect(await client.callTool('get-sum', { a: 2, b: 3 })).toEqual({
      content: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }],
      structuredContent: undefined,
      isError: false,
    });
    const structured = await client.callTool('get-structured-content', { location: 'New York' });
    expect(structured.structuredContent).toEqual(
      expect.objectContaining({ temperature: expect.any(Number) as number }),
    );
    const image = await client.callTool('get-tiny-image', {});
    expect(image.content.some((c) => c.type === 'image' && c.mimeType === 'image/png')).toBe(true);
  });

  it('reports progress of a long operation, and times it out when the deadline is shorter', async () => {
    const updates: ProgressUpdate[] = [];
    const result = await client.callTool(
      'trigger-long-running-operation',
      { duration: 1, steps: 3 },
      { onProgress: (u) => updates.push(u) },
    );
    expect(result.isError).toBe(false);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((u) => u.total === 3)).toBe(true);
    await expect(
      client.callTool('trigger-long-running-operation', { duration: 5, steps: 5 }, { timeoutMs: 300 }),
    ).rejects.toBeInstanceOf(MCPRequestTimeout);
  });
});
