/**
 * The client declares MCP Apps (`io.modelcontextprotocol/ui`, with the MIME type it renders) in
 * its capabilities' `extensions`, in both eras — the apps fixture over stdio (a real subprocess,
 * the v2 server SDK with the extension's helpers) reports what it received, per request in the
 * 2026-07-28 envelope and in `initialize` for the 2025 era. A malformed `_meta.ui` is ignored
 * with a note in the server's log, and the tool stays listed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { ServerConfigSchema } from '../../shared/serverConfig.js';
import { scratchDir } from '../helpers/fixtures.js';
import { appsServerConfig, buildAppsFixture } from '../doubles/servers/appsPeer.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const scratch = scratchDir('mh-apps-ext-');
const clients: MCPClient[] = [];

beforeAll(async () => {
  await buildAppsFixture();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  scratch.cleanup();
});

async function connected(era: 'legacy' | 'modern'): Promise<MCPClient> {
  const c = new MCPClient(
    ServerConfigSchema.parse(appsServerConfig(`apps-${era}`, join(scratch.dir, `${era}.jsonl`), era)),
    { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes() },
  );
  clients.push(c);
  await c.initialize();
  return c;
}

describe.each(['legacy', 'modern'] as const)('the %s era', (era) => {
  it('declares io.modelcontextprotocol/ui with text/html;profile=mcp-app', async () => {
    const c = await connected(era);
    expect(c.negotiated?.era).toBe(era);
    const result = await c.callTool('client_ui', {});
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({
      mimeTypes: ['text/html;profile=mcp-app'],
    });
  });

  it('keeps a tool whose _meta.ui is malformed, and the log says it was ignored', async () => {
    const c = await connected(era);
    const tools = await c.listTools();
    expect(tools.map((t) => t.name)).toContain('broken_ui');
    expect(tools.find((t) => t.name === 'bump')?._meta).toMatchObject({
      ui: { resourceUri: 'ui://counter/app.html', visibility: ['app'] },
    });
    expect(
      c.log
        .all()
        .some((l) => l.text.includes('tool "broken_ui": its _meta.ui is ignored: resourceUri is not a string')),
    ).toBe(true);
  });
});
