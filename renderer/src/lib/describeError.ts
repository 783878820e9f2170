/**
 * The one place the GUI turns main's errors into words: a title per code (exhaustive over the
 * contract's ErrorCode union), and sentences built from the typed details (who denied a call,
 * what failed underneath and where). No view reads meaning out of a message; the message is
 * shown as main wrote it, below the title.
 */
import type { GatewayStatus } from '../../../shared/agents.js';
import type { ErrorShape } from '../../../shared/contract.js';
import type { Denial, ErrorCause, ErrorCode, OAuthDetail } from '../../../shared/errors.js';
import { isErrorCode } from '../../../shared/errors.js';
import { BridgeError } from '../bridge/errors.js';

export type NextPlace = 'servers' | 'permissions' | 'history' | 'settings';

export interface ErrorDescription {
  code: ErrorCode;
  /** A short headline: "Denied: you denied it", "Connection refused", … */
  title: string;
  /** One or two sentences: what happened, whether anything ran, what to do. */
  text: string;
  /** A cancellation is not an error the person has to worry about. */
  tone: 'error' | 'warning';
  /** Where the answer is, when it is elsewhere in the app. */
  next?: NextPlace;
}

interface CodeWords {
  title: string;
  /** Appended to main's message: what it means for the person, what to do. */
  advice?: string;
  tone?: 'warning';
  next?: NextPlace;
}

const NOT_CONNECTED: CodeWords = {
  title: 'Not connected',
  advice: 'Connect the server in Servers and try again.',
  next: 'servers',
};
const PATH_REFUSED: CodeWords = { title: 'Path refused' };
/** Outside the allowed folders: they are added in Settings → Folders. */
const OUTSIDE_FOLDERS: CodeWords = { title: 'Path refused', next: 'settings' };
const HISTORY_CHECK = 'Check History before running it again.';

const WORDS = {
  invalid_request: { title: 'Invalid request' },
  validation: { title: 'Some fields need attention' },
  internal: { title: 'Something went wrong' },
  unknown_channel: { title: 'Unknown request' },
  invalid_frame: { title: 'Invalid message' },
  request_too_large: { title: 'Too large to send' },
  duplicate_request_id: { title: 'Duplicate request' },
  request_too_deep: { title: 'Nested too deeply' },
  forbidden_sender: { title: 'Refused' },
  role_forbidden: { title: 'Not allowed for your role' },
  person_configured: { title: 'Set in the configuration file' },
  last_admin: { title: 'The last admin' },
  token_name_taken: { title: 'Token name taken' },
  ipc_failed: { title: 'No answer from the app' },
  unauthorized: { title: 'Not authorized', advice: 'Open the app again from the link the host printed.' },
  disconnected: {
    title: 'Connection lost',
    advice: `The link to MiniHarness dropped before the answer arrived, so the call may have run. ${HISTORY_CHECK}`,
    next: 'history',
  },
  bad_response: { title: 'Unexpected answer' },
  unrecognized: { title: 'The request failed' },
  not_found: { title: 'Not found' },
  still_running: { title: 'Still running' },
  duplicate_call: { title: 'Already running' },
  args_redacted: { title: 'Its arguments held secrets' },
  not_rerunnable: { title: 'Nothing to run again' },
  not_replayable: { title: 'Nothing to replay' },
  stale_approval: { title: 'Already answered' },
  stale_ask: { title: 'No longer open' },
  record_too_large: { title: 'Too large to show' },
  import_malformed: { title: 'This file is not valid JSON' },
  import_unrecognized: { title: 'This is not an MCP configuration file' },
  import_unknown_server: { title: 'The file changed' },
  import_too_large: { title: 'This file is too large' },
  import_unreadable: { title: 'The file could not be read' },
  workspace_overlaps_data: { title: 'Workspace refused' },
  gateway_loop: { title: 'Would loop through the gateway', next: 'servers' },
  agent_name_taken: { title: 'Agent name taken' },
  agent_config_unreadable: { title: 'That config file was left as it was' },
  agent_config_changed: { title: 'The file changed since' },
  agent_token_mismatch: { title: 'Not this agent’s token' },
  secret_missing: { title: 'Secret missing', next: 'servers' },
  secret_storage_unavailable: { title: 'Secret storage unavailable' },
  secret_undecryptable: { title: 'Secret unreadable', next: 'servers' },
  not_initialized: NOT_CONNECTED,
  closed: { ...NOT_CONNECTED, title: 'Connection closed' },
  timeout: {
    title: 'Timed out',
    advice: `The server may still have acted; it was not retried. ${HISTORY_CHECK}`,
    next: 'history',
  },
  cancelled: {
    title: 'Cancelled',
    advice:
      'The server was told to stop. Whatever it did before it stopped is not undone; the checkpoint stays open in History.',
    tone: 'warning',
    next: 'history',
  },
  auth: { title: 'Sign-in refused', advice: 'Replace the server’s token in Servers.', next: 'servers' },
  command_not_found: { title: 'Command not found', next: 'servers' },
  command_hidden_by_sandbox: {
    title: 'Hidden by the sandbox',
    advice: 'The program is in a folder run_command’s sandbox hides; nothing ran.',
    next: 'settings',
  },
  sandbox_unavailable: { title: 'The sandbox cannot run here', next: 'servers' },
  unreachable: { title: 'Unreachable', advice: 'Nothing was sent.', next: 'servers' },
  server_exited: { ...NOT_CONNECTED, title: 'Process exited' },
  protocol: { title: 'Protocol error', next: 'servers' },
  not_an_mcp_server: { title: 'Not an MCP server', next: 'servers' },
  config: { title: 'Configuration error', next: 'servers' },
  remote: { title: 'The server answered with an error' },
  unavailable: { ...NOT_CONNECTED, title: 'Unavailable' },
  unknown_tool: {
    title: 'Tool not found',
    advice: 'The server no longer offers it; reconnect the server to refresh its tools.',
    next: 'servers',
  },
  transport: { ...NOT_CONNECTED, title: 'Connection error' },
  sign_in_required: { title: 'Needs sign-in', advice: 'Use Sign in on the server in Servers.', next: 'servers' },
  oauth_failed: {
    title: 'Sign-in failed',
    advice: 'Check the server’s OAuth settings in Servers, then sign in again.',
    next: 'servers',
  },
  url_elicitation_required: {
    title: 'Open a link first',
    advice: 'Nothing ran. The link opens in your browser only when you choose to open it.',
    tone: 'warning',
  },
  result_too_large: {
    title: 'Result too large',
    advice: `The tool did run; the server reconnects by itself. ${HISTORY_CHECK}`,
    next: 'history',
  },
  not_offered: { title: 'Not offered by this server' },
  not_supported: { title: 'Not supported by the server' },
  permission_denied: { title: 'Denied', advice: 'Nothing was run.', next: 'permissions' },
  approval_cancelled: { title: 'Cancelled before it was approved', advice: 'Nothing was run.', tone: 'warning' },
  rules_file_corrupt: { title: 'Permission rules unreadable', next: 'permissions' },
  invalid_arguments: { title: 'Invalid arguments' },
  path_outside_roots: OUTSIDE_FOLDERS,
  no_roots: OUTSIDE_FOLDERS,
  invalid_path: PATH_REFUSED,
  path_not_found: PATH_REFUSED,
  path_excluded: PATH_REFUSED,
  path_changed: PATH_REFUSED,
  hard_linked_file: PATH_REFUSED,
  parent_missing: PATH_REFUSED,
  arguments_mismatch: { title: 'Call id already used' },
  in_progress: { title: 'Already running or result unknown', next: 'history' },
  failed: { title: 'The call failed' },
  lease_lost: { title: 'Taken over by another process' },
  result_not_recorded: {
    title: 'Ran, but its result was not recorded',
    advice: 'It may have acted: check what it did, then resolve it in History. Do not run it again as a new call.',
    next: 'history',
  },
  not_resolvable: { title: 'Already resolved' },
  invalid_result: { title: 'Invalid result' },
  schema_too_new: { title: 'Data from a newer version' },
  migration_invalid: { title: 'Database upgrade failed' },
  schema_not_migrated: { title: 'Database not upgraded' },
  invalid_cursor: { title: 'Invalid page' },
  invalid_query: { title: 'Invalid filter' },
  invalid_event: { title: 'Invalid trace event' },
  trace_closed: { title: 'Trace already closed' },
  trace_not_found: { title: 'Trace not found' },
  interrupted: { title: 'Interrupted' },
  database_unreachable: { title: 'Database unreachable' },
  database_refused: { title: 'Database refused the write' },
  model_auth_failed: { title: 'The provider refused the API key' },
  model_rate_limited: { title: 'The provider is rate limiting' },
  model_server_error: { title: 'The provider failed' },
  model_bad_request: { title: 'The provider rejected the request' },
  model_unreachable: { title: 'The provider could not be reached' },
  model_stream_cut: { title: 'The model stream was cut' },
  model_cancelled: { title: 'Cancelled' },
  not_resumable: { title: 'Cannot be resumed now' },
  no_app: { title: 'No app for this tool' },
  app_resource_invalid: { title: 'The app could not be loaded' },
  app_call_refused: { title: 'The app may not call this tool' },
  app_rate_limited: { title: 'The app is calling tools too fast' },
  registry_pagination_loop: { title: 'The registry repeated a page' },
  package_hash_mismatch: { title: 'The package is not the one the registry names' },
  runtime_missing: { title: 'A program this server needs is missing' },
} satisfies Record<ErrorCode, CodeWords>;

/** The code as this renderer knows it: a code from a newer main reads as `unrecognized`. */
function knownCode(code: unknown): ErrorCode {
  return isErrorCode(code) ? code : 'unrecognized';
}

/** A short title for a code (a server's status line, a dialog's headline). */
export function errorTitle(code: unknown, cause?: ErrorCause): string {
  const known = knownCode(code);
  if (known === 'unreachable' && cause) return CAUSE_TITLES[cause.kind];
  if (known === 'auth' && cause?.kind === 'sign_in') return CAUSE_TITLES.sign_in;
  return WORDS[known].title;
}

const CAUSE_TITLES: Record<ErrorCause['kind'], string> = {
  connection_refused: 'Connection refused',
  dns: 'Host not found',
  tls: 'TLS failed',
  timeout: 'Timed out',
  reset: 'Connection reset',
  network: 'Network unreachable',
  blocked_port: 'Port blocked',
  http_status: 'HTTP error',
  exited: 'Process exited',
  protocol: 'Protocol error',
  sign_in: 'Sign-in required',
};

function where(cause: ErrorCause): string {
  return cause.host !== undefined && cause.port !== undefined
    ? `${cause.host}:${cause.port}`
    : (cause.host ?? 'the server');
}

/** What failed underneath, and where, in one sentence built from the typed cause. */
export function causeSentence(cause: ErrorCause): string {
  const at = where(cause);
  const errno = cause.errno ? ` (${cause.errno})` : '';
  switch (cause.kind) {
    case 'connection_refused':
      return `The connection to ${at} was refused${errno}: nothing is listening there. Check that the server is running and the URL is right.`;
    case 'dns':
      return `The host name “${cause.host ?? ''}” could not be resolved${errno}. Check the URL for a typo, or your network’s DNS.`;
    case 'tls':
      return `The TLS (https) handshake with ${at} failed${errno}. Check the certificate, or whether the server speaks https at all.`;
    case 'timeout':
      return `${at} did not answer in time${errno}.`;
    case 'reset':
      return `The connection to ${at} was reset${errno}.`;
    case 'network':
      return `The network cannot reach ${at}${errno}.`;
    case 'blocked_port':
      return `Port ${cause.port ?? ''} of ${cause.host ?? 'the server'} is one that browsers and fetch refuse to use; run the server on another port.`;
    case 'http_status':
      return `The server answered HTTP ${cause.httpStatus ?? ''}.`;
    case 'exited':
      return cause.signal
        ? `The process was killed by ${cause.signal}.`
        : cause.exitCode === null || cause.exitCode === undefined
          ? 'The process closed its connection.'
          : `The process exited with code ${cause.exitCode}.`;
    case 'protocol':
      return 'It did not speak the MCP protocol.';
    case 'sign_in':
      return 'The server asks you to sign in (OAuth).';
  }
}

/** Titles by what a sign-in needs or what failed; the message says the rest. */
const OAUTH_TITLES: Record<OAuthDetail['reason'], string> = {
  no_token: 'Needs sign-in',
  token_rejected: 'Sign-in expired',
  insufficient_scope: 'More permissions needed',
  not_configured: 'Needs OAuth sign-in',
  signed_out: 'Signed out',
  resource_mismatch: 'Sign-in refused: wrong resource',
  discovery_failed: 'Sign-in unavailable',
  registration_failed: 'Registration refused',
  token_request_failed: 'Sign-in refused',
  denied: 'Sign-in refused',
  sign_in_timeout: 'Sign-in timed out',
  step_up_refused: 'Still not permitted',
  redirect_unavailable: 'Redirect port in use',
  issuer_mismatch: 'Sign-in refused: wrong issuer',
};

const DENIAL_TITLES: Record<Denial['by'], string> = {
  person: 'Denied: you denied it',
  rule: 'Denied: a rule denies it',
  default: 'Denied: the default policy denies it',
  guardrail: 'Denied: a safety check refused it',
  approval_timeout: 'Denied: nobody answered in time',
  approval_error: 'Denied: the approval request could not be shown',
  cancelled: 'Cancelled before it was approved',
};

function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/** Words for a refused call, from its typed denial. */
function describeDenial(code: ErrorCode, denial: Denial): Pick<ErrorDescription, 'title' | 'text'> {
  const why =
    denial.by === 'person'
      ? ''
      : denial.by === 'approval_timeout'
        ? `Nobody answered the approval request${denial.timeoutMs !== undefined ? ` within ${Math.round(denial.timeoutMs / 1000)} s` : ''}. `
        : denial.by === 'cancelled'
          ? 'The call was cancelled while it waited for approval. '
          : `${sentence(denial.reason)} `;
  const ran =
    denial.keyRecorded === 'completed'
      ? 'This call did not run again; an earlier call with the same call id ran, and its result is in History.'
      : denial.keyRecorded === 'started'
        ? 'This call did not run again; an earlier call with the same call id started and may have acted (its result is unknown).'
        : 'Nothing was run.';
  return {
    title: code === 'approval_cancelled' ? DENIAL_TITLES.cancelled : DENIAL_TITLES[denial.by],
    text: `${why}${ran}`,
  };
}

/** Title, sentences and tone for an error main (or the bridge) returned. */
export function describeErrorShape(error: ErrorShape): ErrorDescription {
  const code = knownCode(error.code);
  const words: CodeWords = WORDS[code];
  const base = { code, tone: words.tone ?? 'error', ...(words.next ? { next: words.next } : {}) } as const;
  const denial = error.details?.denial;
  if (denial) return { ...base, ...describeDenial(code, denial) };
  const cause = error.details?.cause;
  if (code === 'unreachable' && cause)
    return { ...base, title: errorTitle(code, cause), text: `${causeSentence(cause)} ${words.advice ?? ''}`.trim() };
  // An OAuth challenge: main's sentence says to sign in; "replace the token" would be wrong.
  if (code === 'auth' && cause?.kind === 'sign_in')
    return { ...base, title: errorTitle(code, cause), text: sentence(error.message) };
  const message = code === 'permission_denied' || code === 'disconnected' ? '' : sentence(error.message);
  const oauth = error.details?.oauth;
  return {
    ...base,
    title: oauth ? OAUTH_TITLES[oauth.reason] : words.title,
    text: [message, words.advice].filter(Boolean).join(' '),
  };
}

/** The same for anything caught: a BridgeError carries main's shape; anything else is `internal`. */
export function describeError(error: unknown): ErrorDescription {
  if (error instanceof BridgeError) return describeErrorShape(error.toShape());
  return describeErrorShape({ code: 'internal', message: error instanceof Error ? error.message : String(error) });
}

/** Like `describeError`, with the view's own headline when the code says nothing more than "it failed". */
export function describeFailure(error: unknown, fallbackTitle: string): ErrorDescription {
  const described = describeError(error);
  return described.code === 'internal' || described.code === 'unrecognized'
    ? { ...described, title: fallbackTitle }
    : described;
}

/** The agent gateway's state in words: a title, one sentence on what it means, and whether Settings is the answer. */
export function describeGatewayState(status: Pick<GatewayStatus, 'state' | 'port' | 'errno'>): {
  tone: 'positive' | 'neutral' | 'warning' | 'error';
  title: string;
  text: string;
  next?: NextPlace;
} {
  switch (status.state) {
    case 'listening':
      return {
        tone: 'positive',
        title: 'Listening',
        text: `Agents connect to this address on this computer only (127.0.0.1, port ${status.port}), each with its own token.`,
      };
    case 'starting':
      return { tone: 'neutral', title: 'Starting', text: `The gateway is opening port ${status.port}.` };
    case 'off':
      return {
        tone: 'neutral',
        title: 'Off',
        text: 'The gateway is turned off: no agent can connect. Turn it on in Settings → Agent gateway.',
        next: 'settings',
      };
    case 'port_in_use':
      return {
        tone: 'error',
        title: 'Port in use',
        text: `Port ${status.port} is already used by another program, so no agent can connect. Choose another port in Settings → Agent gateway, or stop the other program.`,
        next: 'settings',
      };
    case 'failed':
      return {
        tone: 'error',
        title: 'Could not start',
        text: `The gateway could not listen on port ${status.port}${status.errno ? ` (${status.errno})` : ''}, so no agent can connect. Choose another port in Settings → Agent gateway.`,
        next: 'settings',
      };
  }
}
