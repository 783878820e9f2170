/**
 * Who made a call (`userId` of approvals, traces and records): `gui` for the person's own calls
 * from this app, otherwise the name of the agent that called through the gateway.
 */
export const GUI_CALLER = 'gui';

export function isAgentCaller(userId: string): boolean {
  return userId !== GUI_CALLER;
}

/**
 * An agent run's caller ("agent run 1a2b3c4d (Model)", electron/runs/runEngine.ts runCaller):
 * its name already says what it is, so no "agent" is put before or after it.
 */
export function isRunCaller(userId: string): boolean {
  return /^agent run [0-9a-f]{8} \(.*\)$/s.test(userId);
}

/** "You" for the person's own calls, the agent's name for an agent's. */
export function callerLabel(userId: string): string {
  return userId === GUI_CALLER ? 'You' : userId;
}
