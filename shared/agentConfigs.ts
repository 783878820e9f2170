/**
 * "Connect an agent": the exact configuration each popular MCP client needs to reach the gateway,
 * as the text the person copies. Claude Desktop's config file starts only local processes, so it
 * runs the stdio entry (`miniharness-gateway`); the others speak Streamable HTTP with the token as
 * a bearer header. Every snippet names the address the gateway listens on (the stdio entry's
 * `--url` too). Pure: the GUI renders it, tests check it parses.
 */
import { GATEWAY_TOKEN_ENV } from './agents.js';

export const AGENT_CLIENTS = ['claude-desktop', 'vscode', 'cursor', 'claude-code'] as const;
export type AgentClient = (typeof AGENT_CLIENTS)[number];

export interface AgentConfigInput {
  /** The agent as registered (its name labels the entry and the stdio entry's messages). */
  agentName: string;
  /** The token when it was just created; otherwise a placeholder the person replaces. */
  token: string;
  url: string;
  stdio: { command: string; args: readonly string[] };
}

export interface AgentConfig {
  client: AgentClient;
  /** Where the snippet goes, in words. */
  where: string;
  /** `json` snippets merge into the client's config file; `shell` is one command to run. */
  format: 'json' | 'shell';
  text: string;
}

/** The entry's key in the client's config: "miniharness", unique enough and stable. */
const AGENT_ENTRY_NAME = 'miniharness';

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Quotes one argument for a POSIX shell (single quotes, each ' closed and escaped). */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

export function agentConfig(client: AgentClient, input: AgentConfigInput): AgentConfig {
  const bearer = { Authorization: `Bearer ${input.token}` };
  switch (client) {
    case 'claude-desktop':
      return {
        client,
        where: 'claude_desktop_config.json (Claude → Settings → Developer → Edit Config), under "mcpServers"',
        format: 'json',
        text: json({
          mcpServers: {
            [AGENT_ENTRY_NAME]: {
              command: input.stdio.command,
              // The address the gateway listens on now (another port in Settings or --gateway-port):
              // without --url the stdio entry would dial the default port.
              args: [...input.stdio.args, '--client', input.agentName, '--url', input.url],
              env: { [GATEWAY_TOKEN_ENV]: input.token },
            },
          },
        }),
      };
    case 'vscode':
      return {
        client,
        where: '.vscode/mcp.json in the workspace (or the user mcp.json), under "servers"',
        format: 'json',
        text: json({ servers: { [AGENT_ENTRY_NAME]: { type: 'http', url: input.url, headers: bearer } } }),
      };
    case 'cursor':
      return {
        client,
        where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project), under "mcpServers"',
        format: 'json',
        text: json({ mcpServers: { [AGENT_ENTRY_NAME]: { url: input.url, headers: bearer } } }),
      };
    case 'claude-code':
      return {
        client,
        where: 'a terminal, in the project where Claude Code runs',
        format: 'shell',
        text: `claude mcp add --transport http ${AGENT_ENTRY_NAME} ${shellQuote(input.url)} --header ${shellQuote(`Authorization: Bearer ${input.token}`)}\n`,
      };
  }
}
