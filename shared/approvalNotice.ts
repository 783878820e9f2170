/**
 * What an OS notification says about an approval that waits, in one place for both hosts: the
 * Electron shell (Electron `Notification`) and the page in browser mode (Web Notification API).
 * It names the tool and where it comes from, never the arguments: notification centers keep old
 * notifications on screen and on disk.
 */
import type { ApprovalView } from './contract.js';

export interface NotificationText {
  title: string;
  body: string;
}

/** The notification for one request; the others waiting are counted, not listed. */
export function approvalNotification(
  view: Pick<ApprovalView, 'toolName' | 'serverId'> & { userId?: string; egress?: ApprovalView['egress'] },
  pendingCount: number,
): NotificationText {
  const more = pendingCount > 1 ? ` ${pendingCount - 1} more ${pendingCount - 1 === 1 ? 'waits' : 'wait'}.` : '';
  // A sandboxed server's connection (issue 29): the server and the host, never anything it sent.
  if (view.egress)
    return {
      title: `Let ${view.serverId} reach ${view.toolName}?`,
      body: `The sandboxed server “${view.serverId}” tried to reach ${view.toolName}; it was refused until you answer.${more} Click to review it.`,
    };
  const from = view.serverId === 'local' ? 'a local tool' : `server “${view.serverId}”`;
  // An agent's call (through the gateway) names the agent: the person did not start it.
  const who = view.userId && view.userId !== 'gui' ? `Agent “${view.userId}” asks to run` : 'A call to';
  return {
    title: `Approve ${view.toolName}?`,
    body: `${who} ${view.toolName} (${from}) waits for your decision; nothing runs until you answer.${more} Click to review it.`,
  };
}
