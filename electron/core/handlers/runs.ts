/** `models.*` and `runs.*`: the person's own models (Settings → Models) and the agent runs (Agent view). */
import type { RunService } from '../runService.js';
import type { Handlers } from '../dispatcher.js';

type RunChannel =
  | 'models.list'
  | 'models.save'
  | 'models.remove'
  | 'models.test'
  | 'runs.list'
  | 'runs.get'
  | 'runs.start'
  | 'runs.stop'
  | 'runs.resume'
  | 'runs.delete';

export function runHandlers(deps: { runs: RunService }): Pick<Handlers, RunChannel> {
  const { runs } = deps;
  return {
    'models.list': () => runs.models(),
    'models.save': (request) => runs.saveModel(request),
    'models.remove': async ({ id }) => ({ removed: await runs.removeModel(id) }),
    'models.test': async ({ id }) => ({ models: await runs.testModel(id) }),
    'runs.list': () => runs.list(),
    'runs.get': ({ id }) => runs.get(id),
    'runs.start': (request) => runs.start(request),
    'runs.stop': async ({ id }) => ({ stopped: await runs.stop(id) }),
    'runs.resume': ({ id }) => runs.resume(id),
    'runs.delete': async ({ id }) => ({ removed: await runs.delete(id) }),
  };
}
