/** No loops: a server that reaches MiniHarness's own gateway is refused. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GatewayLoopError } from '../../electron/gateway/errors.js';
import { gatewayLoopField, refuseGatewayLoop } from '../../electron/gateway/loop.js';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import { PROJECT_ROOT, stdioFixtureConfig } from '../helpers/fixtures.js';

const PORT = 47813;

function http(url: string) {
  return HttpServerConfigSchema.parse({ id: 'remote', name: 'Remote', transport: 'streamable_http', url });
}

describe('gatewayLoopField', () => {
  it.each([
    `http://localhost:${PORT}/mcp`,
    `http://LOCALHOST:${PORT}/mcp`,
    `http://localhost.:${PORT}/mcp`,
    `http://agents.localhost:${PORT}/mcp`,
    `http://127.0.0.1:${PORT}/mcp`,
    `http://127.9.8.7:${PORT}/`,
    `http://127.1:${PORT}/mcp`,
    `http://2130706433:${PORT}/mcp`,
    `http://0.0.0.0:${PORT}/mcp`,
    `http://[::1]:${PORT}/mcp`,
    `http://[::]:${PORT}/mcp`,
    `http://[::ffff:127.0.0.1]:${PORT}/mcp`,
    `http://127.0.0.1:${PORT}/another/path`,
  ])('refuses %s on the gateway port', (url) => {
    expect(gatewayLoopField(http(url), PORT)).toBe('url');
  });

  it.each([
    `http://127.0.0.1:${PORT + 1}/mcp`,
    `http://localhost/mcp`,
    `http://example.com:${PORT}/mcp`,
    `http://10.0.0.1:${PORT}/mcp`,
    `http://[::ffff:10.0.0.1]:${PORT}/mcp`,
  ])('accepts %s', (url) => {
    expect(gatewayLoopField(http(url), PORT)).toBeUndefined();
  });

  it('reads the scheme’s default port when the URL names none', () => {
    expect(gatewayLoopField(http('http://localhost/mcp'), 80)).toBe('url');
    expect(gatewayLoopField(http('https://localhost/mcp'), 443)).toBe('url');
    expect(gatewayLoopField(http('https://localhost/mcp'), 80)).toBeUndefined();
  });

  it('cannot judge a URL while no gateway port is known', () => {
    expect(gatewayLoopField(http(`http://127.0.0.1:${PORT}/mcp`), undefined)).toBeUndefined();
  });

  it('refuses a stdio server that runs the stdio entry, by path or by its bin name', () => {
    const byPath = stdioFixtureConfig(
      'gw',
      {},
      { args: [join(PROJECT_ROOT, 'bin', 'miniharness-gateway.mjs'), '--client', 'loop'] },
    );
    expect(gatewayLoopField(byPath, PORT)).toBe('command');
    expect(
      gatewayLoopField(
        stdioFixtureConfig('gw', {}, { command: 'miniharness-gateway', args: ['--client', 'x'] }),
        undefined,
      ),
    ).toBe('command');
    expect(
      gatewayLoopField(stdioFixtureConfig('gw', {}, { command: 'npx', args: ['-y', 'miniharness-gateway'] }), PORT),
    ).toBe('command');
    expect(gatewayLoopField(stdioFixtureConfig('fx'), PORT)).toBeUndefined();
  });

  it('refuses a stdio server that runs a packaged app as its stdio entry (<app> --gateway-stdio)', () => {
    const app = stdioFixtureConfig(
      'gw',
      {},
      {
        command: '/Applications/MiniHarness Desktop.app/Contents/MacOS/MiniHarness Desktop',
        args: ['--gateway-stdio', '--client', 'x'],
      },
    );
    expect(gatewayLoopField(app, undefined)).toBe('command');
  });

  it('refuseGatewayLoop throws the contract error with the field to mark', () => {
    let caught: unknown;
    try {
      refuseGatewayLoop(http(`http://localhost:${PORT}/mcp`), PORT);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayLoopError);
    expect(caught).toMatchObject({ code: 'gateway_loop', details: { fieldErrors: { url: [expect.any(String)] } } });
    expect(() => refuseGatewayLoop(http(`http://localhost:${PORT + 1}/mcp`), PORT)).not.toThrow();
  });
});
