/**
 * "Connect an agent" (shared/agentConfigs.ts): every snippet names the address the gateway listens
 * on now — on a port other than the default (Settings, --gateway-port) too. Claude Desktop's
 * snippet runs the stdio entry, so its arguments are read back by the entry's own parser.
 */
import { describe, expect, it } from 'vitest';
import { AGENT_CLIENTS, agentConfig } from '../../shared/agentConfigs.js';
import { DEFAULT_GATEWAY_PORT, GATEWAY_TOKEN_ENV } from '../../shared/agents.js';
import { parseStdioArgs } from '../../electron/gateway/stdioArgs.js';

const URL_ELSEWHERE = 'http://127.0.0.1:51234/mcp';
const input = {
  agentName: 'My Agent',
  token: 'mhg_secret',
  url: URL_ELSEWHERE,
  stdio: { command: '/usr/bin/node', args: ['/opt/mh/bin/miniharness-gateway.mjs'] },
};

describe('agentConfig', () => {
  it('every client’s snippet names the port the gateway listens on, never the default one', () => {
    for (const client of AGENT_CLIENTS) {
      const { text } = agentConfig(client, input);
      expect(text, client).toContain(URL_ELSEWHERE);
      expect(text, client).not.toContain(String(DEFAULT_GATEWAY_PORT));
    }
  });

  it('Claude Desktop: the stdio entry started as the snippet says dials the gateway’s address, as the agent', () => {
    const config = JSON.parse(agentConfig('claude-desktop', input).text) as {
      mcpServers: { miniharness: { command: string; args: string[]; env: Record<string, string> } };
    };
    const entry = config.mcpServers.miniharness;
    expect(entry.command).toBe('/usr/bin/node');
    expect(entry.args[0]).toBe('/opt/mh/bin/miniharness-gateway.mjs');
    expect(parseStdioArgs(entry.args.slice(1), entry.env)).toEqual({
      ok: true,
      args: { client: 'My Agent', url: new URL(URL_ELSEWHERE), token: 'mhg_secret' },
    });
    expect(entry.env).toEqual({ [GATEWAY_TOKEN_ENV]: 'mhg_secret' });
  });
});
