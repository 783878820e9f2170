/** `serverRequests.*`: what servers are asking the person (elicitation, sampling), and the person's answers. */
import type { ServerRequestBroker } from '../serverRequests/broker.js';
import type { Handlers } from '../dispatcher.js';

export function serverRequestHandlers(deps: {
  serverRequests: ServerRequestBroker;
}): Pick<Handlers, 'serverRequests.list' | 'serverRequests.answer'> {
  const { serverRequests } = deps;
  return {
    'serverRequests.list': () => serverRequests.list(),
    'serverRequests.answer': ({ requestId, answer }) => {
      serverRequests.answer(requestId, answer);
      return { accepted: true as const };
    },
  };
}
