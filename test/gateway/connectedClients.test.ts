/**
 * Who is connected, as the Agents view gets it from a real app core: a 2026-07-28 agent (the v2
 * SDK Client) has no session but is listed by the clientInfo its requests carry, with its
 * revision; a 2025 agent (the v1 SDK Client) is listed by its session, with the revision it
 * negotiated. Past the idle window (the gateway's clock is the test's, moved instead of waited
 * for) both go: the modern client is no longer listed, and the legacy session of a client that
 * exited without ending it is closed by the gateway — its transport closed, so the view is told —
 * and a request on that session gets 404 "session not found", so a client still there would
 * initialize again. A session holding its notification stream open is connected, quiet or not.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AgentsView, AgentView } from '../../shared/agents.js';
import { AGENT_IDLE_MS } from '../../electron/gateway/clientPresence.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import {
  agentRow,
  connectAgent,
  connectModernAgent,
  requestOnSession as onSession,
  startGatewayApp,
} from './support.js';

/** A 2025 GET notification stream on a session, open once the gateway answered its headers. */
function openStream(url: URL, token: string, sessionId: string): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        headers: {
          Accept: 'text/event-stream',
          Authorization: `Bearer ${token}`,
          'Mcp-Session-Id': sessionId,
          'Mcp-Protocol-Version': '2025-06-18',
        },
      },
      (res) => {
        res.on('error', () => undefined);
        resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
      },
    );
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    req.end();
  });
}

describe('connected clients of both eras, and idle expiry', () => {
  const scratch = scratchDir('mh-gateway-presence-');
  let app: GatewayApp;
  let now = Date.now();
  let agentId: string;
  let token: string;

  const agentView = (): Promise<AgentView> => agentRow(app, agentId);

  /** The first agents.changed after `from` (an index into app.events) that matches. */
  async function changedAfter(from: number, match: (agent: AgentView) => boolean): Promise<AgentView> {
    const mine = (p: AgentsView) => p.agents.find((a) => a.id === agentId);
    await vi.waitFor(
      () =>
        expect(
          app.events
            .slice(from)
            .some((e) => e.event === 'agents.changed' && match(mine(e.payload as AgentsView) as AgentView)),
        ).toBe(true),
      { timeout: 10_000 },
    );
    const seen = app.events
      .slice(from)
      .find((e) => e.event === 'agents.changed' && match(mine(e.payload as AgentsView) as AgentView));
    return mine(seen?.payload as AgentsView) as AgentView;
  }

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir, { clock: () => now });
    ({ id: agentId, token } = await app.createAgent('Presence'));
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('a 2026-07-28 agent is listed by the clientInfo its requests carry, and goes once unseen for the idle window', async () => {
    const from = app.events.length;
    const modern = await connectModernAgent(app.url, token, 'presence-modern');
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      await modern.listTools();
      const agent = await agentView();
      expect(agent.sessions).toEqual([]);
      expect(agent.recentClients).toEqual([
        expect.objectContaining({
          clientName: 'presence-modern',
          clientVersion: '2.0.0',
          protocolVersion: '2026-07-28',
        }),
      ]);
      // The GUI was told when it first came.
      expect((await changedAfter(from, (a) => a.recentClients.length === 1)).recentClients[0]?.clientName).toBe(
        'presence-modern',
      );

      // Still within the window: still listed.
      now += AGENT_IDLE_MS - 1000;
      expect((await agentView()).recentClients).toHaveLength(1);
    } finally {
      await modern.close();
    }
    // Once its requests and streams are over, the window passes (moved until its last one has ended): it is no longer listed.
    await vi.waitFor(
      async () => {
        now += AGENT_IDLE_MS + 1;
        expect((await agentView()).recentClients).toEqual([]);
      },
      { timeout: 10_000 },
    );
  });

  it('a 2025 session left open by a client that exited is closed after the idle window; a request on it then gets 404', async () => {
    const legacy = await connectAgent(app.url, token, 'presence-legacy');
    const sessionId = (legacy.transport as StreamableHTTPClientTransport).sessionId as string;
    expect(sessionId).toBeTruthy();
    expect((await agentView()).sessions).toEqual([
      expect.objectContaining({
        sessionId,
        clientName: 'presence-legacy',
        clientVersion: '1.0.0',
        protocolVersion: expect.stringMatching(/^2025-/) as unknown,
      }),
    ]);
    // The client goes without ending its session (no DELETE): the session stays, and is still served.
    await legacy.close();
    expect((await onSession(app.url, token, sessionId)).status).toBe(200);
    expect((await agentView()).sessions.map((s) => s.sessionId)).toEqual([sessionId]);

    // Past the idle window (moved until its last request has ended): no longer listed.
    await vi.waitFor(
      async () => {
        now += AGENT_IDLE_MS + 1;
        expect((await agentView()).sessions).toEqual([]);
      },
      { timeout: 10_000 },
    );
    // A request on it: the gateway closes it (its transport closed: the view is told) and answers 404.
    const from = app.events.length;
    const gone = await onSession(app.url, token, sessionId);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatch(/Session not found/);
    expect((await changedAfter(from, (a) => a.sessions.length === 0)).sessions).toEqual([]);
    // And it stays gone: the next request is as unknown.
    expect((await onSession(app.url, token, sessionId)).status).toBe(404);
  });

  it('a client that exits is no longer connected at once: its session stays listed as seen (open: false) until the window passes, and the view is told', async () => {
    const legacy = await connectAgent(app.url, token, 'presence-exits');
    const sessionId = (legacy.transport as StreamableHTTPClientTransport).sessionId as string;
    // The v1 client holds its notification stream open: a live connection.
    await vi.waitFor(
      async () => expect((await agentView()).sessions.find((s) => s.sessionId === sessionId)?.open).toBe(true),
      { timeout: 10_000 },
    );
    // It exits without ending its session (no DELETE): its stream closes, the view is told it is only seen now.
    const from = app.events.length;
    await legacy.close();
    const told = await changedAfter(from, (a) => a.sessions.some((s) => s.sessionId === sessionId && !s.open));
    expect(told.sessions.find((s) => s.sessionId === sessionId)).toMatchObject({ open: false });
    await vi.waitFor(
      async () => {
        now += AGENT_IDLE_MS + 1;
        expect((await agentView()).sessions).toEqual([]);
      },
      { timeout: 10_000 },
    );
  });

  it('a 2025 session whose notification stream is open is connected however long it is quiet; once the stream ends, the window starts', async () => {
    const legacy = await connectAgent(app.url, token, 'presence-quiet');
    const sessionId = (legacy.transport as StreamableHTTPClientTransport).sessionId as string;
    // The client's own streams go; the session's notification stream is now this one, held open.
    await legacy.close();
    const stream = await openStream(app.url, token, sessionId);
    expect(stream.status).toBe(200);
    try {
      now += AGENT_IDLE_MS * 10;
      expect((await agentView()).sessions.map((s) => s.sessionId)).toEqual([sessionId]);
      expect((await agentView()).sessions[0]?.open).toBe(true);
    } finally {
      stream.close();
    }
    await vi.waitFor(
      async () => {
        now += AGENT_IDLE_MS + 1;
        expect((await agentView()).sessions).toEqual([]);
      },
      { timeout: 10_000 },
    );
    expect((await onSession(app.url, token, sessionId)).status).toBe(404);
  });
});
