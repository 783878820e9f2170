/**
 * An MCP App's own page for a call (issue 34.5), through the whole app core with the real apps
 * fixture over stdio: `apps.load` with `forCall` is answered by that call's decision where the
 * rules would ask — the person is not asked a second time for the page of a call they are
 * deciding (the load waits for that decision), decided (a History record, a replay), or denied
 * (the page is refused, nobody asked). Without a call the rules ask as before, and a page read
 * that is refused (or not answered) ends in a "denied" trace, not an "error" one.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppResourceView, ApprovalView, CallOutcome } from '../../shared/contract.js';
import type { TraceDetail, TraceSummary } from '../../shared/traces.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { saveServerListed, startGatewayApp } from '../gateway/support.js';
import { appsServerConfig, buildAppsFixture } from '../doubles/servers/appsPeer.js';

const COUNTER_APP_URI = 'ui://counter/app.html';
type Changed = { trace: TraceSummary };

describe('an app’s page for a call: that call’s decision answers for it', () => {
  const scratch = scratchDir('mh-app-page-');
  let app: GatewayApp;

  beforeAll(async () => {
    await buildAppsFixture();
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, appsServerConfig('apps', join(scratch.dir, 'apps.jsonl')));
    // Both the tool and any read of the server ask the person.
    await app.call('permissions.setToolLevel', { serverId: 'apps', toolName: 'show_counter', level: 'ASK' });
    await app.call('permissions.setToolLevel', { serverId: 'apps', toolName: 'resources/read', level: 'ASK' });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  /** The first approval asked for a read of the apps server after `since` events. */
  function pageAsked(since: number): Promise<'asked'> {
    return new Promise((resolve) => {
      const look = () =>
        app.events
          .slice(since)
          .some((e) => e.event === 'approval.requested' && (e.payload as ApprovalView).toolName === 'resources/read');
      if (look()) return resolve('asked');
      void app
        .nextEvent<ApprovalView>('approval.requested', (a) => a.toolName === 'resources/read')
        .then(() => resolve('asked'));
    });
  }

  const codeOf = (promise: Promise<unknown>): Promise<string> =>
    promise.then(
      () => 'resolved',
      (error: { shape?: { code: string } }) => error.shape?.code ?? String(error),
    );

  it('the page of a call waiting for its approval waits for that answer and asks nothing of its own; its History record and replay ask nothing either', async () => {
    const since = app.events.length;
    const callAsked = app.nextEvent<ApprovalView>(
      'approval.requested',
      (a) => a.toolName === 'show_counter' && a.args !== undefined,
    );
    const calling = app.call<CallOutcome>('tools.call', {
      name: 'show_counter',
      serverId: 'apps',
      args: {},
      callId: 'page-call-0001',
    });
    const approval = await callAsked;
    const loading = app.call<AppResourceView>('apps.load', {
      serverId: 'apps',
      resourceUri: COUNTER_APP_URI,
      forCall: { callId: 'page-call-0001' },
    });
    const asked = pageAsked(since);
    await app.call('approvals.answer', { requestId: approval.requestId, answer: 'allow-once' });
    const view = await Promise.race([loading, asked]);
    expect(view, 'the page asked for an approval of its own').not.toBe('asked');
    const outcome = await calling;
    const trace = await app.call<TraceDetail>('traces.get', { traceId: (view as AppResourceView).traceId });
    expect(trace.trace).toMatchObject({ userId: "Counter's app", toolName: 'resources/read', status: 'ok' });
    expect(trace.events.find((e) => e.type === 'decision')?.data).toMatchObject({
      outcome: 'allow',
      reason: expect.stringContaining('page-call-0001') as unknown as string,
    });

    // History: the recorded call's page (its session named), and again — nobody asked.
    for (const forCall of [{ sessionId: outcome.sessionId, callId: 'page-call-0001' }, { callId: 'page-call-0001' }]) {
      const again = await Promise.race([
        app.call<AppResourceView>('apps.load', { serverId: 'apps', resourceUri: COUNTER_APP_URI, forCall }),
        pageAsked(since),
      ]);
      expect(again, 'a recorded call’s page asked for an approval').not.toBe('asked');
    }
  });

  it('the page of a denied call is refused without asking', async () => {
    const since = app.events.length;
    const callAsked = app.nextEvent<ApprovalView>(
      'approval.requested',
      (a) => a.toolName === 'show_counter' && app.events.length > since,
    );
    const calling = app.call<CallOutcome>('tools.call', {
      name: 'show_counter',
      serverId: 'apps',
      args: {},
      callId: 'page-call-0002',
    });
    const approval = await callAsked;
    const loading = codeOf(
      app.call('apps.load', { serverId: 'apps', resourceUri: COUNTER_APP_URI, forCall: { callId: 'page-call-0002' } }),
    );
    const asked = pageAsked(since);
    await app.call('approvals.answer', { requestId: approval.requestId, answer: 'deny' });
    expect(await codeOf(calling)).toBe('permission_denied');
    expect(await Promise.race([loading, asked])).toBe('permission_denied');
  });

  it('a page for an unknown call is asked as any read', async () => {
    const since = app.events.length;
    const loading = codeOf(
      app.call('apps.load', {
        serverId: 'apps',
        resourceUri: COUNTER_APP_URI,
        forCall: { callId: 'no-such-call-0003' },
      }),
    );
    await pageAsked(since);
    const approval = app.events
      .slice(since)
      .map((e) => e.payload as ApprovalView)
      .find((a) => a.toolName === 'resources/read');
    await app.call('approvals.answer', { requestId: approval!.requestId, answer: 'allow-once' });
    expect(await loading).toBe('resolved');
  });

  it('a page for no call is asked as any read; refused, its trace is "denied", not "error"', async () => {
    const since = app.events.length;
    // Every earlier read of this file started before this (and ended before its answer).
    const started = Date.now();
    const loading = app.call('apps.load', { serverId: 'apps', resourceUri: COUNTER_APP_URI }).then(
      () => undefined,
      (error: { shape?: { code: string } }) => error.shape,
    );
    await pageAsked(since);
    const approval = app.events
      .slice(since)
      .map((e) => e.payload as ApprovalView)
      .find((a) => a.toolName === 'resources/read');
    await app.call('approvals.answer', { requestId: approval!.requestId, answer: 'deny' });
    const shape = await loading;
    expect(shape?.code).toBe('permission_denied');
    // The read's trace as it finished (traces are written in batches: its event may come after the answer).
    const finished = await app.nextEvent<Changed>(
      'trace.changed',
      ({ trace }) => trace.startedAt >= started && trace.toolName === 'resources/read' && trace.status !== 'running',
    );
    expect(finished.trace.status).toBe('denied');
  });
});
