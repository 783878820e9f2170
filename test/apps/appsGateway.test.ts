/**
 * MCP Apps through the agent gateway, with the apps fixture behind a real app core and real SDK
 * agents of both eras: an app's tool is listed with its `_meta.ui` (so the agent's own host can
 * render it), app-only tools are neither listed nor callable, and the app's `ui://` page is read
 * through the gateway read-only, decided by the permission engine and traced as the agent.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView } from '../../shared/contract.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { connectAgent, connectModernAgent, saveServerListed, startGatewayApp } from '../gateway/support.js';
import { appsCalls, appsServerConfig, buildAppsFixture } from '../doubles/servers/appsPeer.js';

const COUNTER_APP_URI = 'ui://counter/app.html';

describe('MCP Apps through the gateway', () => {
  const scratch = scratchDir('mh-apps-gw-');
  const events = join(scratch.dir, 'apps.jsonl');
  let app: GatewayApp;
  let token: string;

  beforeAll(async () => {
    await buildAppsFixture();
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, appsServerConfig('apps', events));
    await app.call('permissions.setToolLevel', { serverId: 'apps', toolName: 'bump', level: 'ALLOW' });
    ({ token } = await app.createAgent('Host agent'));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('a 2026-07-28 agent sees the app’s _meta.ui, never an app-only tool, and cannot call one', async () => {
    const agent = await connectModernAgent(app.url, token);
    try {
      const { tools } = await agent.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['apps__show_counter', 'apps__model_only', 'apps__broken_ui']));
      expect(names).not.toContain('apps__bump');
      const shown = tools.find((t) => t.name === 'apps__show_counter');
      expect(shown?._meta).toMatchObject({
        ui: { resourceUri: COUNTER_APP_URI, visibility: ['model', 'app'] },
        'ui/resourceUri': COUNTER_APP_URI,
      });
      // A malformed declaration is not passed on.
      expect(tools.find((t) => t.name === 'apps__broken_ui')?._meta).toBeUndefined();
      await expect(agent.callTool({ name: 'apps__bump', arguments: {} })).rejects.toThrow(/Unknown tool: apps__bump/);
      expect(appsCalls(events)).not.toContain('bump');
    } finally {
      await agent.close();
    }
  });

  it('a 2025 agent gets the same list', async () => {
    const agent = await connectAgent(app.url, token);
    try {
      const { tools } = await agent.listTools();
      expect(tools.map((t) => t.name)).not.toContain('apps__bump');
      expect(tools.find((t) => t.name === 'apps__show_counter')?._meta).toMatchObject({
        ui: { resourceUri: COUNTER_APP_URI },
      });
    } finally {
      await agent.close();
    }
  });

  it('the app’s ui:// page is read through the gateway under the permission engine, as the agent', async () => {
    const agent = await connectModernAgent(app.url, token);
    try {
      const asked = app.nextEvent<ApprovalView>(
        'approval.requested',
        (a) => a.toolName === 'resources/read' && (a.args as { uri?: string }).uri === COUNTER_APP_URI,
      );
      const reading = agent.readResource({ uri: COUNTER_APP_URI });
      const approval = await asked;
      expect(approval.userId).toBe('Host agent');
      await app.call('approvals.answer', { requestId: approval.requestId, answer: 'allow-once' });
      const { contents } = await reading;
      expect(contents[0]).toMatchObject({
        uri: COUNTER_APP_URI,
        mimeType: 'text/html;profile=mcp-app',
        _meta: { ui: { prefersBorder: true } },
      });
      expect((contents[0] as { text: string }).text).toContain('<h1>Counter</h1>');
    } finally {
      await agent.close();
    }
  });
});
