/**
 * When a server's calls can no longer be answered by it: removed, disabled, or gone for good
 * (its connection lost and the reconnects given up: `error`). The calls still running or waiting
 * on it — above all those waiting for the person's approval — are then ended at once with this
 * clause in their answer (CallService.endCallsOf, waitEnded.ts), instead of waiting out the
 * approval timeout for a server that is not there. A server `reconnecting` is coming back: its
 * calls keep waiting.
 */
import type { ServerStatus } from '../mcp/registry/types.js';

/** The clause for a status that ends the server's calls; undefined when they may go on. */
export function serverGoneWhy(serverId: string, status: ServerStatus, stillConfigured: boolean): string | undefined {
  if (status.state === 'closed' && !stillConfigured) return `the server "${serverId}" was removed in MiniHarness`;
  if (status.state === 'disabled') return `the server "${serverId}" was disabled in MiniHarness`;
  if (status.state === 'error') return `the server "${serverId}" went away (${status.reason})`;
  return undefined;
}
