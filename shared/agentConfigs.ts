/**
 * "Connect an agent": the exact configuration each popular MCP client needs to reach the gateway,
 * as the text the person copies. Claude Desktop's config file starts only local processes, so it
 * runs the stdio entry (`miniharness-gateway`); the others speak Streamable HTTP with the token as
 * a bearer header. Every snippet names the address the gateway listens on (the stdio entry's
 * `--url` too). Pure: the GUI renders it, tests check it parses.
 */
import { z } from 'zod';
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

/** The gateway's entry as it goes into a client's own config file: under `section`, as `name`. */
export interface AgentConfigEntry {
  section: 'mcpServers' | 'servers';
  name: string;
  value: Record<string, unknown>;
}

/**
 * The entry each client's config file takes (Claude Code's is its user config, `~/.claude.json`,
 * what `claude mcp add --scope user` writes). "Add to …" writes it; the snippets show it.
 */
export function agentConfigEntry(client: AgentClient, input: AgentConfigInput): AgentConfigEntry {
  const headers = { Authorization: `Bearer ${input.token}` };
  const name = AGENT_ENTRY_NAME;
  switch (client) {
    case 'claude-desktop':
      return {
        section: 'mcpServers',
        name,
        value: {
          command: input.stdio.command,
          // The address the gateway listens on now (another port in Settings or --gateway-port):
          // without --url the stdio entry would dial the default port.
          args: [...input.stdio.args, '--client', input.agentName, '--url', input.url],
          env: { [GATEWAY_TOKEN_ENV]: input.token },
        },
      };
    case 'vscode':
      return { section: 'servers', name, value: { type: 'http', url: input.url, headers } };
    case 'cursor':
      return { section: 'mcpServers', name, value: { url: input.url, headers } };
    case 'claude-code':
      return { section: 'mcpServers', name, value: { type: 'http', url: input.url, headers } };
  }
}

/** "Add to …": which agent (its token, just shown, proves it is that agent's) into which client's file. */
export const AddToClientRequestSchema = z
  .object({ id: z.string().min(1).max(100), client: z.enum(AGENT_CLIENTS), token: z.string().min(1).max(500) })
  .strict();

/** What "Add to …" did: the file, its backup (absent when the file was new), and the handle its Undo takes. */
export const ClientConfigWriteSchema = z.object({
  client: z.enum(AGENT_CLIENTS),
  path: z.string(),
  backupPath: z.string().optional(),
  /** An entry of the same name was there and was replaced. */
  replaced: z.boolean(),
  undoId: z.string(),
});
export type ClientConfigWrite = z.infer<typeof ClientConfigWriteSchema>;

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Quotes one argument for a POSIX shell (single quotes, each ' closed and escaped). */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function snippet(entry: AgentConfigEntry): string {
  return json({ [entry.section]: { [entry.name]: entry.value } });
}

export function agentConfig(client: AgentClient, input: AgentConfigInput): AgentConfig {
  switch (client) {
    case 'claude-desktop':
      return {
        client,
        where: 'claude_desktop_config.json (Claude → Settings → Developer → Edit Config), under "mcpServers"',
        format: 'json',
        text: snippet(agentConfigEntry(client, input)),
      };
    case 'vscode':
      return {
        client,
        where: '.vscode/mcp.json in the workspace (or the user mcp.json), under "servers"',
        format: 'json',
        text: snippet(agentConfigEntry(client, input)),
      };
    case 'cursor':
      return {
        client,
        where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project), under "mcpServers"',
        format: 'json',
        text: snippet(agentConfigEntry(client, input)),
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
