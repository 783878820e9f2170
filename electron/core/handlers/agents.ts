/** `agents.*`: the agent gateway's agents (Agents view), and "Add to …" their applications' config files. */
import type { AgentConfigFiles } from '../agentConfigFiles.js';
import type { AgentService } from '../agentService.js';
import type { Handlers } from '../dispatcher.js';

export function agentHandlers(deps: {
  agents: AgentService;
  configFiles: AgentConfigFiles;
}): Pick<
  Handlers,
  | 'agents.list'
  | 'agents.create'
  | 'agents.setVisibility'
  | 'agents.revoke'
  | 'agents.remove'
  | 'agents.addToClient'
  | 'agents.undoAddToClient'
> {
  const { agents, configFiles } = deps;
  return {
    'agents.list': () => agents.view(),
    'agents.create': ({ name, visibility }) => agents.create(name, visibility),
    'agents.setVisibility': ({ id, visibility }) => agents.setVisibility(id, visibility),
    'agents.revoke': ({ id }) => agents.revoke(id),
    'agents.remove': async ({ id }) => ({ removed: await agents.remove(id) }),
    'agents.addToClient': ({ id, client, token }) => configFiles.add(client, agents.entryFor(id, client, token)),
    'agents.undoAddToClient': ({ undoId }) => configFiles.undo(undoId),
  };
}
