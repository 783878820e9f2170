/**
 * The agents slice: 'agents.changed' replaces the view; a new agent's token goes to the caller
 * only, never into the store; a refused revoke is said, and the agent stays as it was. An
 * agent's connected clients put its 2025 sessions and 2026-07-28 clients in one list.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentsView, AgentView } from '../../shared/agents.js';
import { connectedClientsOf } from '../../renderer/src/state/slices/agentsSlice.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { FakeClient, bridgeError, settle } from '../doubles/renderer/fakeClient.js';

const VISIBILITY = { allServers: true, serverIds: [], localTools: false };

function agent(id: string, name: string, extra: Partial<AgentView> = {}): AgentView {
  return { id, name, createdAt: 1, visibility: VISIBILITY, sessions: [], recentClients: [], calls: 0, ...extra };
}

function view(agents: AgentView[]): AgentsView {
  return {
    gateway: {
      state: 'listening',
      port: 47813,
      url: 'http://127.0.0.1:47813/mcp',
      stdio: { command: 'node', args: ['gw.mjs'] },
    },
    agents,
    tools: [],
  };
}

describe('agents slice', () => {
  let client: FakeClient;
  let store: ReturnType<typeof createAppStore>;
  const state = () => store.getState();

  beforeEach(async () => {
    client = new FakeClient();
    store = createAppStore(client);
    const load = state().loadAgents();
    client.next('agents.list').resolve(view([agent('a1', 'Claude Code')]));
    await load;
  });

  it('takes the whole view from agents.changed', () => {
    state().applyAgents(
      view([
        agent('a1', 'Claude Code', {
          calls: 3,
          sessions: [{ sessionId: 's1', clientName: 'claude-code', startedAt: 1, lastSeenAt: 2, open: true }],
        }),
      ]),
    );
    expect(state().agentsView?.agents[0]).toMatchObject({ calls: 3, sessions: [{ clientName: 'claude-code' }] });
  });

  it('hands a new agent’s token to the caller and keeps none of it', async () => {
    const created = state().createAgent('Cursor', VISIBILITY);
    expect(client.next('agents.create').request).toEqual({ name: 'Cursor', visibility: VISIBILITY });
    client.next('agents.create').resolve({ agent: agent('a2', 'Cursor'), token: 'mhg_secret-token-value' });
    expect((await created).token).toBe('mhg_secret-token-value');
    expect(state().agentsView?.agents.map((a) => a.name)).toEqual(['Claude Code', 'Cursor']);
    expect(JSON.stringify(state())).not.toContain('mhg_secret-token-value');
  });

  it('revoke: the answer replaces the agent; a refusal is said and changes nothing', async () => {
    const refused = state().revokeAgent('a1');
    expect(state().agentsBusy.a1).toBe(true);
    client.next('agents.revoke').reject(bridgeError('not_found', 'No agent "a1" is registered.'));
    await refused;
    expect(state().agentsBusy.a1).toBeUndefined();
    expect(state().agentsView?.agents[0]?.revokedAt).toBeUndefined();
    expect(state().notices.at(-1)).toMatchObject({
      tone: 'error',
      text: expect.stringContaining('Could not revoke the agent'),
    });

    const revoked = state().revokeAgent('a1');
    client.next('agents.revoke').resolve(agent('a1', 'Claude Code', { revokedAt: 5 }));
    await revoked;
    await settle();
    expect(state().agentsView?.agents[0]?.revokedAt).toBe(5);
  });
});

describe('an agent’s connected clients', () => {
  it('both eras in one list, the most recently seen first, each with its era and revision', () => {
    const clients = connectedClientsOf(
      agent('a1', 'Mixed', {
        sessions: [
          {
            sessionId: 's1',
            clientName: 'inspector',
            clientVersion: '0.9',
            protocolVersion: '2025-06-18',
            startedAt: 10,
            lastSeenAt: 20,
            open: false,
          },
        ],
        recentClients: [
          {
            clientName: 'claude-code',
            clientVersion: '2.1',
            protocolVersion: '2026-07-28',
            firstSeenAt: 5,
            lastSeenAt: 30,
            listening: true,
          },
          { protocolVersion: '2026-07-28', firstSeenAt: 1, lastSeenAt: 2, listening: false },
        ],
      }),
    );
    expect(clients).toEqual([
      {
        key: expect.stringMatching(/^modern:/) as unknown,
        era: 'modern',
        protocolVersion: '2026-07-28',
        clientName: 'claude-code',
        clientVersion: '2.1',
        since: 5,
        lastSeenAt: 30,
        listening: true,
        open: true,
      },
      {
        key: 'session:s1',
        era: 'legacy',
        protocolVersion: '2025-06-18',
        clientName: 'inspector',
        clientVersion: '0.9',
        since: 10,
        lastSeenAt: 20,
        listening: false,
        open: false,
      },
      {
        key: expect.stringMatching(/^modern:/) as unknown,
        era: 'modern',
        protocolVersion: '2026-07-28',
        clientName: undefined,
        clientVersion: undefined,
        since: 1,
        lastSeenAt: 2,
        listening: false,
        open: false,
      },
    ]);
    expect(new Set(clients.map((c) => c.key)).size).toBe(3);
  });

  it('none when neither era is connected', () => {
    expect(connectedClientsOf(agent('a1', 'Idle'))).toEqual([]);
  });
});
