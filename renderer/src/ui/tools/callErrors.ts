/** Plain words for a failed tool call, by main's error code. */
import type { ErrorShape } from '../../../../shared/contract.js';

export interface CallErrorText {
  /** A short headline: "Denied", "Cancelled", "Timed out", … */
  title: string;
  /** One or two sentences: what happened, whether anything ran, what to do. */
  text: string;
  /** A cancelled call is not an error the person has to worry about. */
  tone: 'error' | 'warning';
  /** What the person can do next, when the answer is somewhere else in the app. */
  next?: 'servers' | 'permissions' | 'history' | 'settings';
}

/** The reason part of "The call to "x" on "y" was not allowed: <reason>". */
export function denialReason(message: string): string {
  const match = /was not allowed: (.+)$/s.exec(message);
  const reason = (match?.[1] ?? message).trim();
  // Main speaks of "the user"; the person reading this is that user.
  return reason === 'the user denied it' ? 'you denied it' : reason;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

export function callErrorText(error: ErrorShape): CallErrorText {
  switch (error.code) {
    case 'permission_denied':
      return { title: `Denied: ${denialReason(error.message)}`, text: 'Nothing was run.', tone: 'error', next: 'permissions' };
    case 'approval_cancelled':
      return { title: 'Cancelled before it was approved', text: 'The call was cancelled while it waited for approval. Nothing was run.', tone: 'warning' };
    case 'cancelled':
      return {
        title: 'Cancelled',
        text: 'You cancelled the call and the server was told to stop. Whatever it did before it stopped is not undone; the checkpoint stays open in History.',
        tone: 'warning',
        next: 'history',
      };
    case 'timeout':
      return {
        title: 'Timed out',
        text: `${sentence(error.message)} The server may still have acted; it was not retried. Check History before running it again.`,
        tone: 'error',
        next: 'history',
      };
    case 'not_initialized':
    case 'closed':
    case 'connection_refused':
    case 'server_exited':
    case 'unavailable':
    case 'transport':
      return { title: 'Not connected', text: `${sentence(error.message)} Connect the server in Servers and try again.`, tone: 'error', next: 'servers' };
    case 'result_too_large':
      return {
        title: 'Result too large',
        text: `${sentence(error.message)} The tool did run; the server reconnects by itself. Check History before running it again.`,
        tone: 'error',
        next: 'history',
      };
    case 'auth':
      return { title: 'Sign-in refused', text: `${sentence(error.message)} Replace the server’s token in Servers.`, tone: 'error', next: 'servers' };
    case 'unknown_tool':
      return { title: 'Tool not found', text: `${sentence(error.message)} The server no longer offers it; reconnect the server to refresh its tools.`, tone: 'error', next: 'servers' };
    case 'in_progress':
      return { title: 'Already running or result unknown', text: sentence(error.message), tone: 'error', next: 'history' };
    case 'duplicate_call':
      return { title: 'Already running', text: sentence(error.message), tone: 'error' };
    case 'disconnected':
      return {
        title: 'Connection lost',
        text: 'The link to MiniHarness dropped before the answer arrived, so the call may have run. Check History before running it again.',
        tone: 'error',
        next: 'history',
      };
    case 'request_too_large':
      return { title: 'Too large to send', text: sentence(error.message), tone: 'error' };
    case 'remote':
      return { title: 'The server answered with an error', text: sentence(error.message), tone: 'error' };
    case 'invalid_arguments':
    case 'invalid_request':
    case 'validation':
      return { title: 'Invalid arguments', text: sentence(error.message), tone: 'error' };
    case 'path_outside_roots':
    case 'no_roots':
      // Folders are added in Settings → Folders.
      return { title: 'Path refused', text: sentence(error.message), tone: 'error', next: 'settings' };
    case 'invalid_path':
    case 'path_not_found':
      return { title: 'Path refused', text: sentence(error.message), tone: 'error' };
    default:
      return { title: 'The call failed', text: sentence(error.message), tone: 'error' };
  }
}
