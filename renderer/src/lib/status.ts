/** Plain words for a server's status and for main's error codes. */
import type { ServerStatusView } from '../../../shared/contract.js';

const ERROR_LABELS: Record<string, string> = {
  auth: 'Sign-in refused',
  command_not_found: 'Command not found',
  connection_refused: 'Unreachable',
  timeout: 'Timed out',
  server_exited: 'Process exited',
  protocol: 'Protocol error',
  config: 'Configuration error',
  remote: 'Server error',
  unavailable: 'Unavailable',
  transport: 'Connection error',
  closed: 'Connection closed',
  cancelled: 'Cancelled',
  secret_missing: 'Secret missing',
  result_too_large: 'Result too large',
};

export function errorLabel(code: string): string {
  return ERROR_LABELS[code] ?? 'Error';
}

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
      return errorLabel(status.code);
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
      return status.reason;
    case 'reconnecting':
      return `The connection was lost (${errorLabel(status.code).toLowerCase()}): ${status.reason} It reconnects by itself; attempt ${status.attempt} starts ${new Date(status.nextRetryAt).toLocaleTimeString()}.`;
  }
}
