/**
 * MCP Apps through the whole app core (browser mode's `buildCore`), with real stdio servers:
 * the apps fixture (v2 server SDK + the extension's helpers) and the published example
 * `@modelcontextprotocol/server-basic-vanillajs`.
 *
 * - `tools.list`: each tool's `app` from its `_meta.ui` (a malformed one: none);
 * - `apps.load`: the app's HTML with its CSP checked (a source that is not one is dropped and
 *   named), decided and traced as "<server>'s app"; refused when not an app, too large, or undeclared;
 * - `apps.callTool`: through the pipeline as the app — the approval names it, one side effect,
 *   History names it, a re-sent callId replays; visibility enforced (`app_call_refused`, `no_app`);
 * - `apps.readResource`: the app's read of its own server, traced as the app.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AppReadResult,
  AppResourceView,
  ApprovalView,
  CallOutcome,
  HistoryRecordView,
  ToolView,
} from '../../shared/contract.js';
import type { TraceDetail } from '../../shared/traces.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { saveServerListed, startGatewayApp } from '../gateway/support.js';
import {
  BASIC_APP_URI,
  BASIC_TOOL,
  BASIC_VANILLAJS,
  appsCalls,
  appsServerConfig,
  buildAppsFixture,
} from '../doubles/servers/appsPeer.js';

const COUNTER_APP_URI = 'ui://counter/app.html';
const APP_CALLER = "Counter's app";

describe('MCP Apps through the app core', () => {
  const scratch = scratchDir('mh-apps-core-');
  const events = join(scratch.dir, 'apps.jsonl');
  let app: GatewayApp;

  const codeOf = (promise: Promise<unknown>): Promise<string> =>
    promise.then(
      () => 'resolved',
      (error: { shape?: { code: string } }) => error.shape?.code ?? String(error),
    );

  beforeAll(async () => {
    await buildAppsFixture();
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, appsServerConfig('apps', events));
    await saveServerListed(app, {
      id: 'basic',
      name: 'Basic',
      transport: 'stdio',
      command: process.execPath,
      args: [BASIC_VANILLAJS, '--stdio'],
      cwd: PROJECT_ROOT,
    });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('tools.list carries each tool’s app from _meta.ui; a malformed declaration gives none', async () => {
    const { tools } = await app.call<{ tools: ToolView[] }>('tools.list');
    const of = (serverId: string, name: string) => tools.find((t) => t.serverId === serverId && t.name === name);
    expect(of('apps', 'show_counter')?.app).toEqual({ resourceUri: COUNTER_APP_URI, visibility: ['model', 'app'] });
    expect(of('apps', 'bump')?.app).toEqual({ resourceUri: COUNTER_APP_URI, visibility: ['app'] });
    expect(of('apps', 'model_only')?.app).toEqual({ visibility: ['model'] });
    expect(of('apps', 'broken_ui')).toBeDefined();
    expect(of('apps', 'broken_ui')?.app).toBeUndefined();
    expect(of('basic', BASIC_TOOL)?.app).toEqual({ resourceUri: BASIC_APP_URI, visibility: ['model', 'app'] });
  });

  it('apps.load asks the person as the app; the HTML comes with its CSP checked, traced as the app', async () => {
    const asked = app.nextEvent<ApprovalView>(
      'approval.requested',
      (a) => a.toolName === 'resources/read' && a.serverId === 'apps',
    );
    const loading = app.call<AppResourceView>('apps.load', { serverId: 'apps', resourceUri: COUNTER_APP_URI });
    const approval = await asked;
    expect(approval.userId).toBe(APP_CALLER);
    expect(approval.args).toEqual({ uri: COUNTER_APP_URI });
    await app.call('approvals.answer', { requestId: approval.requestId, answer: 'allow-always' });
    const view = await loading;
    expect(view.html).toBe('<!doctype html><html><body><h1>Counter</h1><button id="bump">Bump</button></body></html>');
    expect(view.csp).toEqual({
      connectDomains: ['https://api.example.com'],
      resourceDomains: ['https://*.cdn.example.com'],
    });
    expect(view.warnings).toHaveLength(1);
    expect(view.warnings[0]).toContain('evil.example.com');
    expect(view.permissions).toEqual({ clipboardWrite: true });
    expect(view.prefersBorder).toBe(true);
    const trace = await app.call<TraceDetail>('traces.get', { traceId: view.traceId });
    expect(trace.trace).toMatchObject({
      userId: APP_CALLER,
      toolName: 'resources/read',
      serverId: 'apps',
      status: 'ok',
    });
  });

  it('apps.load of the published example server (server-basic-vanillajs)', async () => {
    await app.call('permissions.setToolLevel', { serverId: 'basic', toolName: 'resources/read', level: 'ALLOW' });
    const view = await app.call<AppResourceView>('apps.load', { serverId: 'basic', resourceUri: BASIC_APP_URI });
    expect(view.html.length).toBeGreaterThan(10_000);
    expect(view.html.toLowerCase()).toContain('<html');
    expect(view.csp).toEqual({});
  });

  it('apps.load refuses a page that is not an app, one too large, and a URI no tool declares', async () => {
    expect(await codeOf(app.call('apps.load', { serverId: 'apps', resourceUri: 'ui://counter/plain.html' }))).toBe(
      'app_resource_invalid',
    );
    expect(await codeOf(app.call('apps.load', { serverId: 'apps', resourceUri: 'ui://counter/big.html' }))).toBe(
      'result_too_large',
    );
    expect(await codeOf(app.call('apps.load', { serverId: 'apps', resourceUri: 'ui://counter/nowhere.html' }))).toBe(
      'no_app',
    );
    expect(await codeOf(app.call('apps.load', { serverId: 'ghost', resourceUri: COUNTER_APP_URI }))).toBe('not_found');
    expect(await codeOf(app.call('apps.load', { serverId: 'apps', resourceUri: 'data://counter/state' }))).toBe(
      'invalid_request',
    );
  });

  it('apps.callTool runs through the pipeline as the app: the approval names it, one side effect, History names it, a re-send replays', async () => {
    const asked = app.nextEvent<ApprovalView>('approval.requested', (a) => a.toolName === 'bump');
    const calling = app.call<CallOutcome>('apps.callTool', {
      serverId: 'apps',
      toolName: 'show_counter',
      name: 'bump',
      args: {},
      callId: 'app-call-0001',
    });
    const approval = await asked;
    expect(approval.userId).toBe(APP_CALLER);
    await app.call('approvals.answer', { requestId: approval.requestId, answer: 'allow-once' });
    const outcome = await calling;
    expect(outcome).toMatchObject({
      toolName: 'bump',
      serverId: 'apps',
      replayed: false,
      result: { content: [{ type: 'text', text: 'bumped 1' }], isError: false },
    });
    expect(appsCalls(events).filter((name) => name === 'bump')).toHaveLength(1);
    const record = await app.call<HistoryRecordView>('history.get', {
      sessionId: outcome.sessionId,
      callId: 'app-call-0001',
    });
    expect(record).toMatchObject({ userId: APP_CALLER, toolName: 'bump', serverId: 'apps', status: 'completed' });
    // The GUI's own session: History's current one.
    expect((await app.call<{ current: string }>('history.sessions')).current).toBe(outcome.sessionId);
    const again = await app.call<CallOutcome>('apps.callTool', {
      serverId: 'apps',
      toolName: 'show_counter',
      name: 'bump',
      args: {},
      callId: 'app-call-0001',
    });
    expect(again.replayed).toBe(true);
    expect(appsCalls(events).filter((name) => name === 'bump')).toHaveLength(1);
  });

  it('visibility: an app cannot call a model-only tool; a tool without an app has no app to call from', async () => {
    const call = (toolName: string, name: string, callId: string) =>
      app.call('apps.callTool', { serverId: 'apps', toolName, name, args: {}, callId });
    expect(await codeOf(call('show_counter', 'model_only', 'app-call-0002'))).toBe('app_call_refused');
    expect(await codeOf(call('broken_ui', 'bump', 'app-call-0003'))).toBe('no_app');
    expect(await codeOf(call('model_only', 'bump', 'app-call-0004'))).toBe('no_app');
    expect(await codeOf(call('show_counter', 'no_such_tool', 'app-call-0005'))).toBe('unknown_tool');
    // Another server's app cannot reach this server's tools: the server is the app's own.
    expect(
      await codeOf(
        app.call('apps.callTool', {
          serverId: 'basic',
          toolName: BASIC_TOOL,
          name: 'bump',
          args: {},
          callId: 'app-call-0006',
        }),
      ),
    ).toBe('unknown_tool');
    expect(appsCalls(events)).not.toContain('model_only');
  });

  it('apps.readResource reads the app’s own server, decided and traced as the app', async () => {
    const read = await app.call<AppReadResult>('apps.readResource', {
      serverId: 'apps',
      toolName: 'show_counter',
      uri: 'data://counter/state',
    });
    expect(read.contents).toEqual([
      { uri: 'data://counter/state', mimeType: 'application/json', text: JSON.stringify({ count: 1 }) },
    ]);
    const trace = await app.call<TraceDetail>('traces.get', { traceId: read.traceId });
    expect(trace.trace).toMatchObject({ userId: APP_CALLER, toolName: 'resources/read', serverId: 'apps' });
    expect(
      await codeOf(
        app.call('apps.readResource', { serverId: 'apps', toolName: 'broken_ui', uri: 'data://counter/state' }),
      ),
    ).toBe('no_app');
  });
});
