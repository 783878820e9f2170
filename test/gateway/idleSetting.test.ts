/**
 * The agents' idle window is a setting (Settings → Agent gateway, `settings.setAgentIdle`), set
 * through the contract as the GUI sets it, against a real app core and its gateway over HTTP with
 * real SDK agents; the gateway's clock is the test's, moved instead of waited for. It is 10
 * minutes by default; a value outside 1–1440 is refused as `invalid_request` and changes
 * nothing; a shorter one applies at once, without a restart: a 2025 session and a 2026-07-28
 * client already unseen that long go — though the default's 10 minutes have not passed — and a
 * request on the session then gets 404. It is saved (a restarted app measures by it), and a
 * damaged saved value is reported and the default used.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AgentsView, AgentView } from '../../shared/agents.js';
import { DEFAULT_AGENT_IDLE_MINUTES } from '../../shared/agents.js';
import type { AppInfo, SettingsView } from '../../shared/contract.js';
import { AGENT_IDLE_MS } from '../../electron/gateway/clientPresence.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { agentRow, connectAgent, connectModernAgent, requestOnSession, startGatewayApp } from './support.js';

const MINUTE = 60_000;

describe("the agents' idle window, a setting", () => {
  const scratch = scratchDir('mh-gateway-idle-setting-');
  let app: GatewayApp;
  let now = Date.now();
  let agentId: string;
  let token: string;

  const agentView = (): Promise<AgentView> => agentRow(app, agentId);

  /** A 2025 session left open by a client that went without ending it (no DELETE), just served. */
  async function abandonedSession(name: string): Promise<string> {
    const legacy = await connectAgent(app.url, token, name);
    const sessionId = (legacy.transport as StreamableHTTPClientTransport).sessionId as string;
    await legacy.close();
    expect((await requestOnSession(app.url, token, sessionId)).status).toBe(200);
    return sessionId;
  }

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir, { clock: () => now });
    ({ id: agentId, token } = await app.createAgent('Idle'));
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('is 10 minutes by default; a value outside 1–1440 minutes is refused as invalid_request and changes nothing', async () => {
    expect(DEFAULT_AGENT_IDLE_MINUTES * MINUTE).toBe(AGENT_IDLE_MS);
    expect((await app.call<SettingsView>('settings.get')).agentIdleMinutes).toBe(10);
    const from = app.events.length;
    for (const minutes of [0, 1441, -5, 2.5, '5', null]) {
      expect(await app.core.dispatch('settings.setAgentIdle', { minutes })).toMatchObject({
        ok: false,
        error: { code: 'invalid_request' },
      });
    }
    expect(await app.core.dispatch('settings.setAgentIdle', {})).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    });
    expect(app.events.slice(from).filter((e) => e.event === 'settings.changed')).toEqual([]);
    expect((await app.call<SettingsView>('settings.get')).agentIdleMinutes).toBe(10);
  });

  it('a shorter window applies at once: a session and a modern client unseen that long leave the Agents view before the default 10 minutes, and the session then gets 404', async () => {
    const sessionId = await abandonedSession('idle-legacy');
    const modern = await connectModernAgent(app.url, token, 'idle-modern');
    await modern.listTools();
    await modern.close();
    const lastSeen = now;

    // Three minutes unseen: under the default window both are still connected.
    now += 3 * MINUTE;
    let agent = await agentView();
    expect(agent.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    expect(agent.recentClients.map((c) => c.clientName)).toEqual(['idle-modern']);

    // Two minutes, set as the GUI sets it: saved, announced, and applied to the running gateway.
    const from = app.events.length;
    const saved = await app.call<SettingsView>('settings.setAgentIdle', { minutes: 2 });
    expect(saved.agentIdleMinutes).toBe(2);
    expect(app.events.slice(from).filter((e) => e.event === 'settings.changed')).toEqual([
      { event: 'settings.changed', payload: { settings: saved } },
    ]);

    // Both leave the view without any request of theirs. (Whether the gateway closed the session at
    // once or its next look for idle ones does is not visible from outside; the view and the 404
    // are. A last request that ended only after the clock moved starts the window then: the clock
    // moves on by half a minute until it has passed — still, checked below, short of the default.)
    await vi.waitFor(
      async () => {
        agent = await agentView();
        const gone = agent.sessions.length === 0 && agent.recentClients.length === 0;
        if (!gone) now += MINUTE / 2;
        expect(gone).toBe(true);
      },
      { timeout: 10_000 },
    );
    expect(now - lastSeen).toBeLessThan(AGENT_IDLE_MS);
    // The Agents view is told.
    const closedAfter = (e: GatewayApp['events'][number]): boolean =>
      e.event === 'agents.changed' &&
      (e.payload as AgentsView).agents.find((a) => a.id === agentId)?.sessions.length === 0;
    await vi.waitFor(() => expect(app.events.slice(from).some(closedAfter)).toBe(true), { timeout: 10_000 });
    const gone = await requestOnSession(app.url, token, sessionId);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatch(/Session not found/);
  });

  it('is saved: a restarted app measures by it', async () => {
    await app.close();
    app = await startGatewayApp(scratch.dir, { clock: () => now });
    expect((await app.call<SettingsView>('settings.get')).agentIdleMinutes).toBe(2);
    const sessionId = await abandonedSession('idle-after-restart');
    const lastSeen = now;
    now += 2 * MINUTE + 1000;
    await vi.waitFor(
      async () => {
        const sessions = (await agentView()).sessions;
        if (sessions.length > 0) now += MINUTE / 2;
        expect(sessions).toEqual([]);
      },
      { timeout: 10_000 },
    );
    expect(now - lastSeen).toBeLessThan(AGENT_IDLE_MS);
    expect((await requestOnSession(app.url, token, sessionId)).status).toBe(404);
  }, 30_000);
});

it('a damaged saved idle window is reported, and the default is used until it is set again', async () => {
  const scratch = scratchDir('mh-gateway-idle-damaged-');
  const dataDir = join(scratch.dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ gateway: { idleMinutes: 0 } }));
  const app = await startGatewayApp(scratch.dir);
  try {
    expect((await app.call<SettingsView>('settings.get')).agentIdleMinutes).toBe(DEFAULT_AGENT_IDLE_MINUTES);
    const info = await app.call<AppInfo>('app.info');
    expect(info.warnings).toContainEqual({
      code: 'notice',
      message: expect.stringMatching(/agent idle session time.*not valid/) as unknown,
    });
    expect((await app.call<SettingsView>('settings.setAgentIdle', { minutes: 30 })).agentIdleMinutes).toBe(30);
  } finally {
    await app.close();
    scratch.cleanup();
  }
}, 30_000);
