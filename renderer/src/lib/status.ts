/** Plain words for a server's status (error codes are worded in lib/describeError.ts). */
import type { ServerStatusView } from '../../../shared/contract.js';
import { causeSentence, errorTitle } from './describeError.js';
import { sandboxReasonWords } from './sandboxWords.js';

export function statusLabel(status: ServerStatusView): string {
  switch (status.state) {
    case 'ready':
      return 'Ready';
    case 'connecting':
      return 'Connecting…';
    case 'idle':
      return 'Not connected';
    case 'closed':
      return 'Disconnected';
    case 'disabled':
      return 'Disabled';
    case 'error':
      return errorTitle(status.code, status.cause);
    case 'reconnecting':
      return `Reconnecting (attempt ${status.attempt})`;
  }
}

/** A sentence for the detail view, saying what the state means and what to do. */
export function statusExplanation(status: ServerStatusView): string {
  switch (status.state) {
    case 'ready':
      return 'Connected; its tools are available.';
    case 'connecting':
      return 'Starting the connection and negotiating capabilities…';
    case 'idle':
      return 'Not connected yet. Connect to start it and list its tools.';
    case 'closed':
      return 'The connection was closed. Connect again to use its tools.';
    case 'disabled':
      return 'Turned off: it is not started and its tools are not offered. Enable it to use it.';
    case 'error':
      // What failed and where, from the typed cause or the sandbox's reason; otherwise main's own sentence.
      if (status.sandbox) return `Not started: its sandbox cannot run — ${sandboxReasonWords(status.sandbox.reason)}.`;
      return status.code === 'unreachable' && status.cause ? causeSentence(status.cause) : status.reason;
    case 'reconnecting':
      return `The connection was lost (${errorTitle(status.code, status.cause).toLowerCase()}): ${status.code === 'unreachable' && status.cause ? causeSentence(status.cause) : status.reason} It reconnects by itself; attempt ${status.attempt} starts ${new Date(status.nextRetryAt).toLocaleTimeString()}.`;
  }
}
