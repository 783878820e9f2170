/**
 * A model provider's failures as coded data. The SDKs' errors (HTTP status, connection, abort)
 * and a stream that ends before the model said it stopped all become one `ModelError` with a
 * code the run and the GUI switch on; a 429's retry-after travels with it. Messages never hold
 * the request (it may carry the key in a header) — only the status and the provider's message.
 */
import * as anthropic from '@anthropic-ai/sdk';
import * as openai from 'openai';
import { CodedError } from '../util/codedError.js';

export type ModelErrorCode =
  | 'model_auth_failed'
  | 'model_rate_limited'
  | 'model_server_error'
  | 'model_bad_request'
  | 'model_unreachable'
  | 'model_stream_cut'
  | 'model_cancelled';

export class ModelError extends CodedError<ModelErrorCode> {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    /** For `model_rate_limited`: how long the provider asked to wait, when it said. */
    readonly retryAfterMs?: number,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Retry-After in seconds or as an HTTP date; `retry-after-ms` when the provider sends it. */
function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function fromStatus(status: number, headers: Headers | undefined, providerMessage: string): ModelError {
  if (status === 401 || status === 403)
    return new ModelError('model_auth_failed', `The provider refused the API key (HTTP ${status}).`, undefined, status);
  if (status === 429)
    return new ModelError(
      'model_rate_limited',
      `The provider is rate limiting (HTTP 429): ${providerMessage}`,
      retryAfterMs(headers),
      status,
    );
  if (status >= 500)
    return new ModelError(
      'model_server_error',
      `The provider failed (HTTP ${status}): ${providerMessage}`,
      undefined,
      status,
    );
  return new ModelError(
    'model_bad_request',
    `The provider rejected the request (HTTP ${status}): ${providerMessage}`,
    undefined,
    status,
  );
}

/** The errno (ECONNREFUSED, ENOTFOUND, …) under a connection error, through its `cause` chain. */
function errnoUnder(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const ERRNO_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused: nothing is listening at that address',
  ENOTFOUND: 'the host name could not be resolved',
  EAI_AGAIN: 'the host name could not be resolved (DNS did not answer)',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
};

/**
 * "Could not be reached" with where and what was tried: the request (method and URL, never a
 * header), what failed underneath, and that it was tried once (a run does not retry an
 * unreachable provider).
 */
function unreachable(error: unknown, endpoint: string | undefined): ModelError {
  const errno = errnoUnder(error);
  const what = errno
    ? `${ERRNO_WORDS[errno] ?? 'the connection failed'} (${errno})`
    : error instanceof Error && error.message && error.message !== 'Connection error.'
      ? error.message
      : 'the connection failed';
  const where = endpoint ? ` at ${endpoint}` : '';
  return new ModelError(
    'model_unreachable',
    `The provider could not be reached${where}: ${what}. It was tried once and not retried; check that the model server is running and the model's base URL in Settings → Models.`,
  );
}

/**
 * The request a provider call makes, for messages: the method and the URL without what may carry a
 * credential (a base URL's `user:key@`, its query, its fragment) — the message reaches the renderer
 * and the run's record.
 */
export function endpointOf(method: 'GET' | 'POST', baseUrl: string, path: string): string {
  let shown: string;
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    shown = url.href;
  } catch {
    return `${method} (the model's base URL)`;
  }
  return `${method} ${shown.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/**
 * Any failure of a provider call as a ModelError; `streaming` says the answer had begun;
 * `endpoint` ("POST http://…/chat/completions") is named when the provider could not be reached.
 */
export function toModelError(error: unknown, streaming: boolean, signal?: AbortSignal, endpoint?: string): ModelError {
  if (error instanceof ModelError) return error;
  if (signal?.aborted || error instanceof anthropic.APIUserAbortError || error instanceof openai.APIUserAbortError) {
    return new ModelError('model_cancelled', 'The model turn was cancelled.');
  }
  const httpStatus = error instanceof anthropic.APIError || error instanceof openai.APIError ? error.status : undefined;
  const connectionLost = error instanceof anthropic.APIConnectionError || error instanceof openai.APIConnectionError;
  // An error event inside the stream: the provider's own words (an API error with a body but no status).
  const reportedInStream =
    streaming &&
    !connectionLost &&
    (error instanceof anthropic.APIError || error instanceof openai.APIError) &&
    typeof httpStatus !== 'number';
  // Once the answer has begun, a broken connection is a cut stream, not an unreachable provider.
  if (streaming && typeof httpStatus !== 'number' && !reportedInStream)
    return new ModelError('model_stream_cut', 'The model stream was cut before the model finished its turn.');
  if (connectionLost) return unreachable(error, endpoint);
  if (error instanceof anthropic.APIError || error instanceof openai.APIError) {
    const providerMessage = typeof error.error === 'object' && error.error !== null ? messageOf(error.error) : '';
    if (typeof error.status === 'number')
      return fromStatus(error.status, error.headers, providerMessage || 'no details');
    return new ModelError(
      'model_server_error',
      `The provider failed${reportedInStream ? ' during its answer' : ''}: ${providerMessage || 'no details'}`,
    );
  }
  return unreachable(error, endpoint);
}

function messageOf(body: object): string {
  const inner = (body as { error?: unknown }).error;
  const holder = inner && typeof inner === 'object' ? inner : body;
  const message = (holder as { message?: unknown }).message;
  return typeof message === 'string' ? message.slice(0, 300) : '';
}
