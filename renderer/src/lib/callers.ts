/**
 * Who made a call (`userId` of approvals, traces and records): `gui` for the person's own calls
 * from this app, otherwise the name of the agent that called through the gateway.
 */
export const GUI_CALLER = 'gui';

export function isAgentCaller(userId: string): boolean {
  return userId !== GUI_CALLER;
}

/** "You" for the person's own calls, the agent's name for an agent's. */
export function callerLabel(userId: string): string {
  return userId === GUI_CALLER ? 'You' : userId;
}
