/**
 * A real MCP server over stdio whose `flood` tool writes lines to its stderr — the way a chatty
 * or broken server fills the GUI's log — for the slow-page tests and `npm run bench:bridge`.
 * Each line is `<tag> <index> xxx…`; after the last it writes `flood done <tag> <lines>`, so a
 * test can wait for that line instead of guessing when the host has read everything.
 *
 * Run: node --import tsx test/doubles/servers/stderrFloodServer.ts
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

function write(text: string): Promise<void> {
  // Pipes are synchronous on Linux; elsewhere wait for the pipe to take more.
  return process.stderr.write(text)
    ? Promise.resolve()
    : new Promise((resolve) => process.stderr.once('drain', () => resolve()));
}

const server = new McpServer({ name: 'stderr-flood', version: '1.0.0' }, { capabilities: { tools: {} } });

server.registerTool(
  'flood',
  {
    description: 'Writes `lines` lines of `width` characters to stderr, then "flood done <tag> <lines>".',
    inputSchema: { lines: z.number().int().min(1), width: z.number().int().min(1).max(1_900), tag: z.string().max(40) },
    annotations: { readOnlyHint: true },
  },
  async ({ lines, width, tag }) => {
    const body = 'x'.repeat(width);
    // Batches of lines per write keep the flood fast without one huge string.
    const batch = Math.max(1, Math.floor(65_536 / (width + 20)));
    for (let i = 0; i < lines; i += batch) {
      let chunk = '';
      for (let j = i; j < Math.min(lines, i + batch); j++) chunk += `${tag} ${j} ${body}\n`;
      await write(chunk);
    }
    await write(`flood done ${tag} ${lines}\n`);
    return { content: [{ type: 'text', text: `wrote ${lines} lines` }] };
  },
);

await server.connect(new StdioServerTransport());
