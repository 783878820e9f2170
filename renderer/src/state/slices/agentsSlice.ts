/**
 * The agent gateway as the Agents view shows it: the endpoint's state, the registered agents
 * (with who is connected as each, in both eras, and their recorded calls) and the names agents
 * see; `connectedClientsOf` puts an agent's 2025 sessions and 2026-07-28 clients in one list. Loaded with
 * 'agents.list', then replaced whole by every 'agents.changed'. History and Traces read the
 * agents' names for their caller filter.
 *
 * A new agent's token is handed to the caller of `createAgent` and never stored here: the view
 * that shows it once forgets it when it closes.
 */
import type { AgentClient, ClientConfigWrite } from '../../../../shared/agentConfigs.js';
import type { AgentsView, AgentView, AgentVisibility } from '../../../../shared/agents.js';
import { messageOf } from '../../bridge/index.js';
import { loadable } from '../loadable.js';
import type { Loadable } from '../loadable.js';
import type { ClientSliceCreator, StateOf } from '../types.js';

/** One client connected as an agent, whichever its era: a 2025 session or a 2026-07-28 client known by its envelope's clientInfo. */
export interface ConnectedClient {
  key: string;
  era: 'legacy' | 'modern';
  /** The revision it speaks: the 2025 one negotiated, or the one its requests are sent for. */
  protocolVersion: string | undefined;
  clientName: string | undefined;
  clientVersion: string | undefined;
  /** Session started (2025), first seen (2026-07-28). */
  since: number;
  lastSeenAt: number;
  /** 2026-07-28: it holds a `subscriptions/listen` stream open. */
  listening: boolean;
  /**
   * Connected now: it holds a request or stream open (a 2025 session's notification stream or a
   * call; a 2026-07-28 listen stream). Otherwise it was only seen lately and may have exited.
   */
  open: boolean;
}

/** The agent's clients of both eras (connected now, or seen within the idle window), most recently seen first. */
export function connectedClientsOf(agent: AgentView): ConnectedClient[] {
  const legacy = agent.sessions.map<ConnectedClient>((s) => ({
    key: `session:${s.sessionId}`,
    era: 'legacy',
    protocolVersion: s.protocolVersion,
    clientName: s.clientName,
    clientVersion: s.clientVersion,
    since: s.startedAt,
    lastSeenAt: s.lastSeenAt,
    listening: false,
    open: s.open,
  }));
  const modern = agent.recentClients.map<ConnectedClient>((c) => ({
    key: `modern:${JSON.stringify([c.clientName ?? null, c.clientVersion ?? null, c.protocolVersion])}`,
    era: 'modern',
    protocolVersion: c.protocolVersion,
    clientName: c.clientName,
    clientVersion: c.clientVersion,
    since: c.firstSeenAt,
    lastSeenAt: c.lastSeenAt,
    listening: c.listening,
    open: c.listening,
  }));
  return [...legacy, ...modern].sort((a, b) => b.lastSeenAt - a.lastSeenAt);
}

export interface AgentsSlice extends Loadable<'agents'> {
  agentsView: AgentsView | undefined;
  /** Agents being changed (visibility, revoke, remove), by id. */
  agentsBusy: Record<string, true>;

  loadAgents(): Promise<void>;
  /** The whole view, from 'agents.changed'. */
  applyAgents(view: AgentsView): void;
  /** Registers an agent; resolves with its token, which is shown once. Throws the BridgeError. */
  createAgent(name: string, visibility: AgentVisibility): Promise<{ agent: AgentView; token: string }>;
  /** Throws the BridgeError (the dialog shows it). */
  setAgentVisibility(id: string, visibility: AgentVisibility): Promise<void>;
  revokeAgent(id: string): Promise<void>;
  removeAgent(id: string): Promise<void>;
  /** "Add to …": the gateway's entry into that application's config file. Throws the BridgeError (the panel shows it). */
  addAgentToClient(id: string, client: AgentClient, token: string): Promise<ClientConfigWrite>;
  /** Undoes one "Add to …" (its `undoId`). Throws the BridgeError. */
  undoAgentToClient(undoId: string): Promise<void>;
  clearAgents(): void;
}

const AGENTS = loadable('agents');
const INITIAL: StateOf<AgentsSlice> = { agentsView: undefined, ...AGENTS.idle, agentsBusy: {} };

export const createAgentsSlice: ClientSliceCreator<AgentsSlice> = (client) => (set, get) => {
  /** Puts one agent's new state into the view at once; the 'agents.changed' that follows replaces it all. */
  function patchAgent(agent: AgentView): void {
    const view = get().agentsView;
    if (!view) return;
    const known = view.agents.some((a) => a.id === agent.id);
    const agents = known ? view.agents.map((a) => (a.id === agent.id ? agent : a)) : [...view.agents, agent];
    set({ agentsView: { ...view, agents } }, false, 'agents/patch');
  }

  async function change(id: string, run: () => Promise<void>, failure: string, rethrow = false): Promise<void> {
    set({ agentsBusy: { ...get().agentsBusy, [id]: true } }, false, 'agents/change');
    try {
      await run();
    } catch (error) {
      if (rethrow) throw error;
      get().notify('error', `${failure}: ${messageOf(error)}`);
    } finally {
      const { [id]: _done, ...rest } = get().agentsBusy;
      set({ agentsBusy: rest }, false, 'agents/changeDone');
    }
  }

  return {
    ...INITIAL,

    async loadAgents() {
      if (get().agentsLoad !== 'ready') set(AGENTS.loading, false, 'agents/load');
      try {
        const agentsView = await client.call('agents.list', {});
        set({ agentsView, ...AGENTS.ready }, false, 'agents/loaded');
      } catch (error) {
        set(AGENTS.failed(error), false, 'agents/loadError');
      }
    },

    applyAgents(agentsView) {
      set({ agentsView, ...AGENTS.ready }, false, 'agents/changed');
    },

    async createAgent(name, visibility) {
      const created = await client.call('agents.create', { name, visibility });
      patchAgent(created.agent);
      return created;
    },

    setAgentVisibility(id, visibility) {
      return change(
        id,
        async () => patchAgent(await client.call('agents.setVisibility', { id, visibility })),
        'Could not change what the agent sees',
        true,
      );
    },

    revokeAgent(id) {
      return change(
        id,
        async () => patchAgent(await client.call('agents.revoke', { id })),
        'Could not revoke the agent',
      );
    },

    removeAgent(id) {
      return change(
        id,
        async () => {
          await client.call('agents.remove', { id });
          const view = get().agentsView;
          if (view)
            set({ agentsView: { ...view, agents: view.agents.filter((a) => a.id !== id) } }, false, 'agents/removed');
        },
        'Could not remove the agent',
      );
    },

    addAgentToClient(id, agentClient, token) {
      return client.call('agents.addToClient', { id, client: agentClient, token });
    },

    async undoAgentToClient(undoId) {
      await client.call('agents.undoAddToClient', { undoId });
    },

    clearAgents() {
      set(INITIAL, false, 'agents/clear');
    },
  };
};
