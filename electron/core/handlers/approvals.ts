/** `approvals.*`: the open approval dialogs and a person's answers. */
import type { ApprovalBroker } from '../approvalBroker.js';
import type { Handlers } from '../dispatcher.js';

export function approvalHandlers(deps: {
  broker: ApprovalBroker;
}): Pick<Handlers, 'approvals.list' | 'approvals.answer'> {
  const { broker } = deps;
  return {
    'approvals.list': () => broker.list(),
    'approvals.answer': async ({ requestId, answer }) => {
      await broker.decide(requestId, answer);
      return { accepted: true as const };
    },
  };
}
