/** The stdio entry's command line (electron/gateway/stdioArgs.ts), shared by the bin and the app's --gateway-stdio. */
import { describe, expect, it } from 'vitest';
import { GATEWAY_STDIO_FLAG, gatewayStdioInvocation, parseStdioArgs } from '../../electron/gateway/stdioArgs.js';

const env = { MINIHARNESS_GATEWAY_TOKEN: 'mhg_token' };

describe('parseStdioArgs', () => {
  it('the client and the URL, the token from the environment; defaults: agent, the default gateway URL', () => {
    expect(parseStdioArgs(['--client', 'Claude Desktop', '--url', 'http://127.0.0.1:5000/mcp'], env)).toEqual({
      ok: true,
      args: { client: 'Claude Desktop', url: new URL('http://127.0.0.1:5000/mcp'), token: 'mhg_token' },
    });
    expect(parseStdioArgs([], env)).toEqual({
      ok: true,
      args: { client: 'agent', url: new URL('http://127.0.0.1:47813/mcp'), token: 'mhg_token' },
    });
  });

  it('an unknown option: the parser’s sentence and the usage naming the command', () => {
    expect(parseStdioArgs(['--nope'], env)).toEqual({
      ok: false,
      message: "Unknown option '--nope'. Usage: miniharness-gateway --client <name> [--url http://127.0.0.1:47813/mcp]",
    });
    const app = parseStdioArgs(['stray'], env, 'MiniHarness --gateway-stdio');
    expect(app.ok).toBe(false);
    expect(!app.ok && app.message).toMatch(
      /Usage: MiniHarness --gateway-stdio --client <name> \[--url http:\/\/127\.0\.0\.1:47813\/mcp\]$/,
    );
  });

  it('no token, and a URL that is none', () => {
    expect(parseStdioArgs(['--client', 'x'], {})).toEqual({
      ok: false,
      message: "set MINIHARNESS_GATEWAY_TOKEN to the agent's token (MiniHarness → Agents → Connect an agent).",
    });
    expect(parseStdioArgs(['--url', 'not a url'], env)).toEqual({
      ok: false,
      message: '--url must be a URL such as http://127.0.0.1:47813/mcp, not "not a url".',
    });
  });
});

describe('gatewayStdioInvocation', () => {
  it('is the relay only with the flag, and its options are what follows it', () => {
    expect(GATEWAY_STDIO_FLAG).toBe('--gateway-stdio');
    expect(gatewayStdioInvocation([])).toBeUndefined();
    expect(gatewayStdioInvocation(['--workspace', '/w', '--gateway-port', '0'])).toBeUndefined();
    expect(gatewayStdioInvocation(['--gateway-stdio', '--client', 'Cursor'])).toEqual(['--client', 'Cursor']);
    // Electron run from a checkout: `electron . --gateway-stdio …`.
    expect(gatewayStdioInvocation(['.', '--gateway-stdio'])).toEqual([]);
  });
});
