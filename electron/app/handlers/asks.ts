/** `asks.*`: what servers are asking the person (elicitation, sampling), and the person's answers. */
import type { ServerAskBroker } from '../asks/broker.js';
import type { Handlers } from '../dispatcher.js';

export function askHandlers(deps: { asks: ServerAskBroker }): Pick<Handlers, 'asks.list' | 'asks.answer'> {
  const { asks } = deps;
  return {
    'asks.list': () => asks.list(),
    'asks.answer': ({ requestId, answer }) => {
      asks.answer(requestId, answer);
      return { accepted: true as const };
    },
  };
}
