/**
 * The agents slice: 'agents.changed' replaces the view; a new agent's token goes to the caller
 * only, never into the store; a refused revoke is said, and the agent stays as it was.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentsView, AgentView } from '../../shared/agents.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { FakeClient, bridgeError, settle } from './fakeClient.js';

const VISIBILITY = { allServers: true, serverIds: [], localTools: false };

function agent(id: string, name: string, extra: Partial<AgentView> = {}): AgentView {
  return { id, name, createdAt: 1, visibility: VISIBILITY, sessions: [], recentClients: [], calls: 0, ...extra };
}

function view(agents: AgentView[]): AgentsView {
  return {
    gateway: { state: 'listening', port: 47813, url: 'http://127.0.0.1:47813/mcp', stdio: { command: 'node', args: ['gw.mjs'] } },
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
    state().applyAgents(view([agent('a1', 'Claude Code', { calls: 3, sessions: [{ sessionId: 's1', clientName: 'claude-code', startedAt: 1, lastSeenAt: 2 }] })]));
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
    expect(state().notices.at(-1)).toMatchObject({ tone: 'error', text: expect.stringContaining('Could not revoke the agent') });

    const revoked = state().revokeAgent('a1');
    client.next('agents.revoke').resolve(agent('a1', 'Claude Code', { revokedAt: 5 }));
    await revoked;
    await settle();
    expect(state().agentsView?.agents[0]?.revokedAt).toBe(5);
  });
});
