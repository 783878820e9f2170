/**
 * The Agents view's side of the gateway: registering, limiting and revoking agents, and the one
 * view of the endpoint, the agents (with who is connected as each, and their recorded calls) and
 * the names agents see. Every change that alters what an agent sees reaches it at once, in its
 * era's way: list_changed on its open 2025 sessions and on its 2026-07-28 `subscriptions/listen`
 * streams; on revoke, its sessions and streams end. Who is connected comes in both eras: its 2025
 * sessions, and its 2026-07-28 clients (stateless, so known by the clientInfo of their requests'
 * envelopes) seen within the idle window (see electron/gateway/clientPresence.ts).
 */
import type { AgentClient, AgentConfigEntry } from '../../shared/agentConfigs.js';
import { agentConfigEntry } from '../../shared/agentConfigs.js';
import type { AgentsView, AgentView, AgentVisibility } from '../../shared/agents.js';
import type { AgentStorage, StoredAgent } from '../gateway/agentStore.js';
import type { GatewayCatalog } from '../gateway/catalog.js';
import type { Gateway } from '../gateway/gateway.js';
import type { CallerStats } from '../tracing/callerStats.js';
import { AppError } from './errors.js';

export class AgentService {
  constructor(
    private readonly store: AgentStorage,
    private readonly gateway: Gateway,
    private readonly catalog: GatewayCatalog,
    /** Each agent's calls and last call, from the traces (tracing/callerStats.ts, or PostgreSQL's traces). */
    private readonly callerStats: (userIds: readonly string[]) => Promise<Map<string, CallerStats>>,
    /** Something the view shows changed (the core sends agents.changed). */
    private readonly changed: () => void,
  ) {}

  async view(): Promise<AgentsView> {
    const agents = this.store.list();
    const stats = await this.callerStats(agents.map((a) => a.name));
    return {
      gateway: this.gateway.status(),
      agents: agents.map((agent) => this.agentView(agent, stats.get(agent.name))),
      tools: this.catalog.names(),
    };
  }

  async create(name: string, visibility: AgentVisibility): Promise<{ agent: AgentView; token: string }> {
    const { agent, token } = await this.store.create(name, visibility);
    this.changed();
    return { agent: await this.statedView(agent), token };
  }

  async setVisibility(id: string, visibility: AgentVisibility): Promise<AgentView> {
    const agent = await this.store.setVisibility(id, visibility);
    await this.gateway.toolsChanged();
    this.changed();
    return this.statedView(agent);
  }

  async revoke(id: string): Promise<AgentView> {
    const agent = await this.store.revoke(id);
    await this.gateway.closeAgent(id);
    this.changed();
    return this.statedView(agent);
  }

  async remove(id: string): Promise<boolean> {
    this.store.get(id);
    await this.gateway.closeAgent(id, 'this agent was removed from MiniHarness');
    const removed = await this.store.remove(id);
    this.changed();
    return removed;
  }

  /**
   * The gateway's entry for one client's config file ("Add to …"): the address it listens on now
   * and, for the stdio entry, `--url` and `--client`. The token must be this agent's (only its
   * hash is kept, so the renderer passes the one it was just shown; a wrong one is refused rather
   * than written into the person's config).
   */
  entryFor(id: string, client: AgentClient, token: string): AgentConfigEntry {
    const agent = this.store.get(id);
    if (this.store.authenticate(token)?.id !== agent.id)
      throw new AppError(
        'agent_token_mismatch',
        `That is not the token of “${agent.name}” (or the agent was revoked). Nothing was written.`,
      );
    const { url, stdio } = this.gateway.status();
    return agentConfigEntry(client, { agentName: agent.name, token, url, stdio });
  }

  private async statedView(agent: StoredAgent): Promise<AgentView> {
    return this.agentView(agent, (await this.callerStats([agent.name])).get(agent.name));
  }

  private agentView(agent: StoredAgent, stats: CallerStats | undefined): AgentView {
    return {
      id: agent.id,
      name: agent.name,
      createdAt: agent.createdAt,
      ...(agent.revokedAt !== undefined ? { revokedAt: agent.revokedAt } : {}),
      visibility: agent.visibility,
      sessions: this.gateway.sessionsOf(agent.id),
      recentClients: this.gateway.recentClientsOf(agent.id),
      calls: stats?.calls ?? 0,
      ...(stats?.lastCall ? { lastCall: stats.lastCall } : {}),
      ...(agent.signIn
        ? {
            signIn: {
              clientId: agent.signIn.clientId,
              ...(agent.signIn.clientName ? { clientName: agent.signIn.clientName } : {}),
              redirectTarget: agent.signIn.redirectTarget,
              state: this.gateway.signInStateOf(agent.signIn.grantId),
            },
          }
        : {}),
    };
  }
}
