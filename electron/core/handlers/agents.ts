/** `agents.*`: the agent gateway's agents (Agents view). */
import type { AgentService } from '../agentService.js';
import type { Handlers } from '../dispatcher.js';

export function agentHandlers(deps: {
  agents: AgentService;
}): Pick<Handlers, 'agents.list' | 'agents.create' | 'agents.setVisibility' | 'agents.revoke' | 'agents.remove'> {
  const { agents } = deps;
  return {
    'agents.list': () => agents.view(),
    'agents.create': ({ name, visibility }) => agents.create(name, visibility),
    'agents.setVisibility': ({ id, visibility }) => agents.setVisibility(id, visibility),
    'agents.revoke': ({ id }) => agents.revoke(id),
    'agents.remove': async ({ id }) => ({ removed: await agents.remove(id) }),
  };
}
