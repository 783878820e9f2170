/**
 * A 2026-07-28 server over loopback HTTP whose tool declares `x-mcp-header` parameters (SEP-2243):
 * v2's `createMcpHandler` (which itself refuses a `tools/call` whose `Mcp-Param-*` headers do not
 * match the body, -32020) behind `toNodeHandler`, recording the `Mcp-Param-*` headers of each
 * `tools/call` as they arrived on the wire. Tests only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';

export interface ParamHeaderServer {
  url: string;
  /** The `mcp-param-*` headers of each tools/call, lower-cased names, raw values. */
  calls: Array<Record<string, string>>;
  close(): Promise<void>;
}

const INPUT = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    label: { type: 'string', 'x-mcp-header': 'Label' },
    priority: { type: 'integer', 'x-mcp-header': 'Priority' },
    verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
    query: { type: 'string' },
  },
  required: ['region', 'query'],
} as const;

function build(): McpServer {
  const server = new McpServer({ name: 'param-headers', version: '1.0.0' });
  server.registerTool(
    'search',
    { description: 'Mirrors region, label, priority and verbose into headers', inputSchema: fromJsonSchema(INPUT) },
    (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
  );
  return server;
}

export async function startParamHeaderServer(): Promise<ParamHeaderServer> {
  const handler = createMcpHandler(build, { legacy: 'reject' });
  const node = toNodeHandler(handler);
  const calls: ParamHeaderServer['calls'] = [];
  const server = createServer((req, res) => {
    if (req.headers['mcp-method'] === 'tools/call') {
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (name.startsWith('mcp-param-') && typeof value === 'string') params[name] = value;
      calls.push(params);
    }
    void node(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
