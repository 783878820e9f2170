/**
 * Requests a server sends to the client: elicitation (a form to fill or a link to open, for the
 * person), sampling (a model response; here the person writes it, as in the MCP Inspector) and
 * roots (the folders configured for the server).
 *
 * The MCP layer shows nothing itself. Elicitation and sampling go to a `ServerRequestHandlers` the
 * app provides (a broker that raises dialogs), and the client declares those capabilities only
 * when it has one — a client that cannot ask anybody must not say it can. Roots are answered
 * here, from the configuration; they are always declared (an empty list shares no folder).
 *
 * Both eras reach the same handlers: a legacy server sends these as requests; a modern
 * (2026-07-28) server answers a `tools/call`, `prompts/get` or `resources/read` with
 * `input_required`. For prompts/get and resources/read the SDK dispatches each embedded request
 * here, then retries with the answers (at most MAX_INPUT_ROUNDS rounds: negotiation.ts); a tool
 * call runs its rounds itself (inputRounds.ts) and uses `answerElicitation` / `answerSampling`
 * below when the call has no answerer of its own (an agent's). A legacy server's request goes to
 * the agent that made the call when it can be tied to that call (`TiedCall`: client.ts says which
 * call, by the HTTP response stream it arrived on, or on stdio as the only call in flight) and the
 * agent declared it can answer; otherwise to the person. Nothing else answers for the person:
 * without handlers the capabilities are not declared and such a call fails.
 *
 * Nothing a person answers is logged: the server's log gets one line per request with its kind,
 * size and outcome (a link's host, never its path or query).
 */
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ProtocolError, ProtocolErrorCode, specTypeSchemas } from '@modelcontextprotocol/client';
import type {
  Client,
  ClientCapabilities,
  ElicitRequestFormParams,
  ElicitRequestParams,
  ElicitResult,
} from '@modelcontextprotocol/client';
import { MCPProtocolError } from './errors.js';
import type {
  RootEntry as Root,
  SamplingParams as CreateMessageRequestParams,
  SamplingResult as CreateMessageResult,
} from './retiredFeatures.js';
import type { CallServerRequestHandlers, InputAnswerer } from './types.js';

export type ElicitationServerRequest =
  | { serverId: string; mode: 'form'; message: string; requestedSchema: ElicitRequestFormParams['requestedSchema'] }
  | { serverId: string; mode: 'url'; message: string; url: string; elicitationId: string };

export interface SamplingServerRequest {
  serverId: string;
  params: CreateMessageRequestParams;
}

/** The person's answer to a sampling request: a response to send back, or a refusal and why. */
export type SamplingAnswer =
  { action: 'respond'; text: string; model: string } | { action: 'reject'; reason: 'person' | 'expired' | 'cancelled' };

/**
 * Who answers what a server asks. Each call resolves once with the answer (an elicitation that
 * nobody answered resolves as `cancel`); `signal` aborts when the server withdraws the request
 * or the connection closes. A handler that cannot show a request throws `ServerRequestNotShownError`.
 */
export interface ServerRequestHandlers {
  elicit(serverRequest: ElicitationServerRequest, signal: AbortSignal): Promise<ElicitResult>;
  sample(serverRequest: SamplingServerRequest, signal: AbortSignal): Promise<SamplingAnswer>;
}

/** The request cannot be shown to a person (it does not fit a dialog): the server is told "invalid params". */
export class ServerRequestNotShownError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerRequestNotShownError';
  }
}

/**
 * The abort reason of a request whose tool call ended first (answered, failed, cancelled, timed
 * out): nobody waits for the answer any more, and the dialog says so — not that the server
 * withdrew it.
 */
export class ServerRequestCallEnded extends Error {
  constructor() {
    super('The tool call that was waiting for this answer has ended.');
    this.name = 'ServerRequestCallEnded';
  }
}

/**
 * A person is being asked on behalf of a call (or of every call in flight: personWaits.ts):
 * `signal` aborts when the call is over (none: the request is tied to no call), and `answered()`
 * lets the call's deadline run again.
 */
export interface PersonWait {
  signal: AbortSignal | undefined;
  answered(): void;
}

/** Runs one request of the person under `wait`: the call's deadline pauses meanwhile; the request ends with the call or with the server's withdrawal. */
export async function whilePersonAnswers<T>(
  wait: PersonWait | undefined,
  serverSignal: AbortSignal | undefined,
  serverRequest: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const signals = [serverSignal, wait?.signal].filter((signal): signal is AbortSignal => signal !== undefined);
  try {
    return await serverRequest(signals.length === 1 ? signals[0]! : AbortSignal.any(signals));
  } finally {
    wait?.answered();
  }
}

/** The JSON-RPC code the spec uses for a sampling request the person rejected. */
const SAMPLING_REJECTED_CODE = -1;

/** What the client declares: roots always; elicitation (form with defaults, and URL) and sampling only with someone to answer. */
export function clientCapabilities(handlers: ServerRequestHandlers | undefined): ClientCapabilities {
  return {
    roots: { listChanged: true },
    ...(handlers ? { elicitation: { form: { applyDefaults: true }, url: {} }, sampling: {} } : {}),
  };
}

/** Configured folders as MCP roots: `file://` URIs named by their last segment. */
export function rootsOf(paths: readonly string[]): Root[] {
  return paths.map((path) => ({ uri: pathToFileURL(path).href, name: basename(path) || path }));
}

/**
 * The tool call a 2025 server's request belongs to, when that can be known (client.ts decides:
 * on HTTP the call whose response stream carried the request, on stdio the only call in flight).
 */
export interface TiedCall {
  /** The call's own answerers (an agent that declared it can answer), tried before the person. */
  asks: CallServerRequestHandlers | undefined;
  /** This call waits while its question is answered (its deadline pauses; the wait ends with the call). */
  wait(): PersonWait;
  /** The question was answered, and by whom (the call's trace records it, like an input round). */
  asked(kind: 'elicitation' | 'sampling', answeredBy: InputAnswerer): void;
}

export interface ServerRequestContext {
  serverId: string;
  handlers: ServerRequestHandlers | undefined;
  /** The folders configured now (read at each `roots/list`). */
  roots: () => readonly string[];
  /** A line for the server's log (never an answer's content). */
  note: (line: string) => void;
  /** The calls in flight that wait while the person is asked (personWaits.ts): a question tied to no one call. */
  personWaitBegins?: () => PersonWait;
  /** The call the request now being handled belongs to, if it can be told (a 2025 server's requests only). */
  tiedCall?: () => TiedCall | undefined;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The host of a link, for the log (its path and query may carry a one-time code). */
function hostOf(url: string): string {
  try {
    return new URL(url).host || 'a link';
  } catch {
    return 'a link';
  }
}

/** Registers the handlers for every request the declared capabilities allow the server to send. */
export function registerServerRequestHandlers(sdk: Client, context: ServerRequestContext): void {
  const { serverId, handlers, note, personWaitBegins } = context;

  sdk.setRequestHandler('roots/list', () => {
    const roots = rootsOf(context.roots());
    note(`roots/list answered with ${plural(roots.length, 'folder', 'folders')}`);
    return { roots };
  });

  if (!handlers) return;
  // A request tied to one call goes to that call's agent when it can answer, else to the person
  // while that call alone waits; a request tied to no call pauses every call in flight (personWaits.ts).
  // Either way the request ends with the call(s) waiting for it, or when the server withdraws it.
  sdk.setRequestHandler('elicitation/create', async (request, ctx) => {
    const call = context.tiedCall?.();
    const elicit = call?.asks?.elicit;
    const result = elicit
      ? await whilePersonAnswers(call.wait(), ctx.mcpReq.signal, (signal) =>
          agentElicitation({ serverId, note }, request.params, elicit, signal),
        )
      : await whilePersonAnswers(call ? call.wait() : personWaitBegins?.(), ctx.mcpReq.signal, (signal) =>
          answerElicitation({ serverId, handlers, note }, request.params, signal),
        );
    call?.asked('elicitation', elicit ? 'agent' : 'person');
    return result;
  });
  sdk.setRequestHandler('sampling/createMessage', async (request, ctx) => {
    const call = context.tiedCall?.();
    const sample = call?.asks?.sample;
    const result = sample
      ? await whilePersonAnswers(call.wait(), ctx.mcpReq.signal, (signal) =>
          agentSampling({ serverId, note }, request.params, sample, signal),
        )
      : await whilePersonAnswers(call ? call.wait() : personWaitBegins?.(), ctx.mcpReq.signal, (signal) =>
          answerSampling({ serverId, handlers, note }, request.params, signal),
        );
    call?.asked('sampling', sample ? 'agent' : 'person');
    return result;
  });

  // A link's flow finished out of band: worth a line in the log, nothing to answer.
  sdk.setNotificationHandler('notifications/elicitation/complete', () => {
    note('the server reports an elicitation link flow complete');
  });
}

/** Who answers for the person, and where the log lines go (one concern of ServerRequestContext). */
export interface PersonAnswerer {
  serverId: string;
  handlers: ServerRequestHandlers;
  note: (line: string) => void;
}

/** What an elicitation asks, for the log: a form's field count, a link's host (never its path). */
function describeElicitation(params: ElicitRequestParams): string {
  return params.mode === 'url'
    ? `link to ${hostOf(params.url)}`
    : `form, ${plural(Object.keys(params.requestedSchema.properties).length, 'field', 'fields')}`;
}

/** Refuses what this client never runs or shows: tasks, and links other than web pages. */
function checkElicitation(params: ElicitRequestParams): void {
  if (params.task)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'This client does not run elicitation requests as tasks.');
  // Only a web page may be opened: never file:, javascript: or an app's own scheme.
  if (params.mode === 'url' && !/^https?:$/.test(new URL(params.url).protocol))
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'An elicitation link must be an http or https URL.');
}

/** Refuses what this client never runs: tasks, and tools in a sampling request (`sampling.tools` is not declared). */
function checkSampling(params: CreateMessageRequestParams): void {
  if (params.task)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'This client does not run sampling requests as tasks.');
  if (params.tools || params.toolChoice)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'This client does not support tools in sampling requests.',
    );
}

/** What a sampling request asks, for the log. */
function describeSampling(params: CreateMessageRequestParams): string {
  return `${plural(params.messages.length, 'message', 'messages')}, up to ${params.maxTokens} tokens`;
}

/** An elicitation answered by the person (a legacy request, or an `input_required` entry). */
export async function answerElicitation(
  person: PersonAnswerer,
  params: ElicitRequestParams,
  signal: AbortSignal,
): Promise<ElicitResult> {
  checkElicitation(params);
  const what = describeElicitation(params);
  const serverRequest: ElicitationServerRequest =
    params.mode === 'url'
      ? {
          serverId: person.serverId,
          mode: 'url',
          message: params.message,
          url: params.url,
          elicitationId: params.elicitationId,
        }
      : { serverId: person.serverId, mode: 'form', message: params.message, requestedSchema: params.requestedSchema };
  try {
    const result = await person.handlers.elicit(serverRequest, signal);
    person.note(`elicitation request (${what}): ${signal.aborted ? withdrawal(signal) : result.action}`);
    return result;
  } catch (error) {
    throw refusal('elicitation', what, error, person.note);
  }
}

/** A sampling request answered by the person: their text as the model's response, or the refusal. */
export async function answerSampling(
  person: PersonAnswerer,
  params: CreateMessageRequestParams,
  signal: AbortSignal,
): Promise<CreateMessageResult> {
  checkSampling(params);
  const what = describeSampling(params);
  let answer: SamplingAnswer;
  try {
    answer = await person.handlers.sample({ serverId: person.serverId, params }, signal);
  } catch (error) {
    throw refusal('sampling', what, error, person.note);
  }
  if (answer.action === 'reject') {
    person.note(
      `sampling request (${what}): ${answer.reason === 'person' ? 'rejected' : signal.aborted ? withdrawal(signal) : answer.reason}`,
    );
    const message =
      answer.reason === 'person'
        ? 'The person rejected the sampling request.'
        : answer.reason === 'expired'
          ? 'Nobody answered the sampling request in time.'
          : 'The sampling request was withdrawn.';
    throw new ProtocolError(SAMPLING_REJECTED_CODE, message);
  }
  person.note(`sampling request (${what}): response sent`);
  return {
    role: 'assistant',
    content: { type: 'text', text: answer.text },
    model: answer.model,
    stopReason: 'endTurn',
  };
}

/** An elicitation answered by the call's agent (a 2025 request, or an `input_required` entry): the question without this client's envelope. */
export async function agentElicitation(
  asker: { serverId: string; note: (line: string) => void },
  params: ElicitRequestParams,
  elicit: NonNullable<CallServerRequestHandlers['elicit']>,
  signal: AbortSignal,
): Promise<ElicitResult> {
  checkElicitation(params);
  const {
    _meta: _envelope,
    task: _task,
    ...question
  } = params as ElicitRequestParams & { _meta?: unknown; task?: unknown };
  const what = describeElicitation(params);
  const result = await elicit(question.mode === 'url' ? question : { ...question, mode: 'form' }, signal);
  const checked = specTypeSchemas.ElicitResult['~standard'].validate(result);
  if (checked.issues)
    throw new MCPProtocolError(
      asker.serverId,
      `the agent's answer to the server's elicitation request (${what}) is not a valid elicitation result`,
    );
  asker.note(`elicitation request (${what}): ${checked.value.action} (answered by the agent)`);
  return checked.value;
}

/** A sampling request answered by the call's agent: its text relayed; any other content refused. */
export async function agentSampling(
  asker: { serverId: string; note: (line: string) => void },
  params: CreateMessageRequestParams,
  sample: NonNullable<CallServerRequestHandlers['sample']>,
  signal: AbortSignal,
): Promise<CreateMessageResult> {
  checkSampling(params);
  const what = describeSampling(params);
  const {
    _meta: _envelope,
    task: _task,
    ...request
  } = params as CreateMessageRequestParams & { _meta?: unknown; task?: unknown };
  const result = await sample(request, signal);
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  const text = blocks.length === 1 && blocks[0]?.type === 'text' ? blocks[0].text : undefined;
  if (text === undefined || typeof result.model !== 'string') {
    const kinds =
      blocks.map((block) => String((block as { type?: unknown } | undefined)?.type)).join(', ') || 'nothing';
    asker.note(`sampling request (${what}): the agent's answer was not text (${kinds}); refused`);
    throw new MCPProtocolError(
      asker.serverId,
      `the agent answered the server's sampling request with ${kinds}; only a single text response is relayed to a server`,
    );
  }
  asker.note(`sampling request (${what}): response sent (answered by the agent)`);
  return {
    role: 'assistant',
    content: { type: 'text', text },
    model: result.model,
    ...(result.stopReason !== undefined ? { stopReason: result.stopReason } : {}),
  };
}

/** Why a request ended unanswered, for the log: its call ended, or the server withdrew it. */
function withdrawal(signal: AbortSignal): string {
  return signal.reason instanceof ServerRequestCallEnded
    ? 'withdrawn (the call that asked has ended; no answer was sent)'
    : 'withdrawn';
}

/** A request no dialog could take: the server learns why (invalid params), the log says so. */
function refusal(kind: string, what: string, error: unknown, note: (line: string) => void): ProtocolError {
  if (error instanceof ServerRequestNotShownError) {
    note(`${kind} request (${what}) refused: ${error.message}`);
    return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
  }
  note(`${kind} request (${what}) failed`);
  return new ProtocolError(ProtocolErrorCode.InternalError, `The ${kind} request could not be shown.`);
}
