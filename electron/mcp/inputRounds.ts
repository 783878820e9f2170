/**
 * The `input_required` rounds of one `tools/call` on a 2026-07-28 connection, run by the client
 * itself (the SDK's auto-fulfilment is left to prompts/get and resources/read): the SDK hands the
 * `input_required` answer back (`allowInputRequired`), each embedded request is answered here,
 * and the same call is sent again with `inputResponses` and the server's `requestState` echoed
 * untouched — at most `maxRounds` times, then the SDK's "rounds exceeded" error (errorMapping.ts
 * words it).
 *
 * Running the rounds here, inside the call, is what lets a call carry its own answerers: the SDK
 * fulfils its rounds outside the caller's context, so nothing there can tell which call a
 * question belongs to. Who answers each embedded request:
 * - an elicitation or a sampling request: the call's own hook when it has one (an agent that
 *   declared it can answer — `RequestOptions.asks`), else the client's handlers (the person);
 *   neither: the call fails, no answer is made up;
 * - roots: the configured folders (never a person);
 * - a 2026-07-28 caller (`RequestOptions.serverRequests.relay`, the gateway's modern agents) gets
 *   first, in one go and under the server's own keys, every request of a kind it declared; of the
 *   rest, a sampling request is refused to it (-32021 on its request), the others are answered above.
 * An agent's sampling answer is relayed as text only; anything else is refused with a clear error.
 *
 * The same answering (`answerInputRequests`) serves a task's `input_required` (tasks/followTask.ts).
 *
 * Each round is reported (`onRound`: the kinds asked and who answered — never the answers), and
 * every answer waits under the call's signal (the caller's cancel and the call's total deadline);
 * while the person is asked, the call's deadline pauses (`personWait`), and the dialog ends with the call.
 */
import { SdkError, SdkErrorCode, isInputRequiredResult, specTypeSchemas } from '@modelcontextprotocol/client';
import type { ElicitRequestParams, ElicitResult, InputRequest, InputResponse } from '@modelcontextprotocol/client';
import { MCPProtocolError } from './errors.js';
import type { SamplingParams, SamplingResult } from './retiredFeatures.js';
import type { PersonAnswerer, PersonWait } from './serverRequests.js';
import {
  agentElicitation,
  agentSampling,
  answerElicitation,
  answerSampling,
  rootsOf,
  whilePersonAnswers,
} from './serverRequests.js';
import type { CallServerRequestHandlers, InputAnswerer, InputKind, InputRound, RoundRelay } from './types.js';

export interface InputRoundsContext {
  serverId: string;
  /** The client's handlers (the person's dialogs); absent when the client has nobody to ask. */
  person: PersonAnswerer | undefined;
  /**
   * The call waits for the person: its deadline pauses until the answer, and the dialog ends
   * with the call (`signal` aborts with `ServerRequestCallEnded`). Absent: the dialog ends on the call's signal.
   */
  personWait?: (() => PersonWait) | undefined;
  /** This call's own answerers (an agent's), tried first. */
  serverRequests: CallServerRequestHandlers | undefined;
  roots: () => readonly string[];
  /** A line for the server's log (never an answer's content). */
  note: (line: string) => void;
  onRound?: ((round: InputRound) => void) | undefined;
  maxRounds: number;
}

type Params = Record<string, unknown>;
type Answered = { response: InputResponse; kind: InputRound['requests'][number]['kind']; answeredBy: InputAnswerer };

/**
 * Sends `params` (a `tools/call`'s), and while the server answers `input_required`, answers its
 * requests and sends the call again with them. Resolves with the first complete result.
 */
export async function runInputRounds(
  params: Params,
  send: (params: Params) => Promise<unknown>,
  context: InputRoundsContext,
  signal: AbortSignal,
): Promise<unknown> {
  let result = await send(params);
  for (let round = 1; isInputRequiredResult(result); round++) {
    if (round > context.maxRounds) {
      throw new SdkError(
        SdkErrorCode.InputRequiredRoundsExceeded,
        `input_required rounds exceeded (${context.maxRounds})`,
        { rounds: context.maxRounds },
      );
    }
    const { responses, requests } = await answerInputRequests(result.inputRequests ?? {}, context, signal);
    context.onRound?.({ round, requests });
    result = await send({
      ...params,
      ...(result.inputRequests ? { inputResponses: responses } : {}),
      ...(result.requestState !== undefined ? { requestState: result.requestState } : {}),
    });
  }
  return result;
}

/**
 * Answers a set of embedded requests (a round's, or a task's `input_required` — tasks/followTask.ts)
 * one by one, under the call's signal: the responses by key, and who answered each.
 */
export async function answerInputRequests(
  inputRequests: Record<string, InputRequest>,
  context: InputRoundsContext,
  signal: AbortSignal,
): Promise<{ responses: Record<string, InputResponse>; requests: InputRound['requests'] }> {
  const requests: InputRound['requests'] = [];
  const responses: Record<string, InputResponse> = {};
  const relay = context.serverRequests?.relay;
  const rest = relay
    ? await relayToCaller(relay, inputRequests, context, signal, { requests, responses })
    : inputRequests;
  for (const [key, request] of Object.entries(rest)) {
    throwIfAborted(signal);
    // An answerer that gave up because the call ended: the call's end is the error.
    // The call ends when its signal aborts, whether or not the answerer has noticed yet.
    const answered = await untilAborted(answer(key, request, context, signal), signal).catch((error: unknown) => {
      throwIfAborted(signal);
      throw error;
    });
    responses[key] = answered.response;
    requests.push({ kind: answered.kind, answeredBy: answered.answeredBy });
  }
  throwIfAborted(signal);
  return { responses, requests };
}

/**
 * A 2026-07-28 caller's share of a round: every request of a kind it declared goes to it at once,
 * under the server's own key, and its responses are checked here (a response under a key not
 * asked is ignored). A sampling request it did not declare is refused to it (`relay.refuse`).
 * Resolves with the requests left for this client to answer (the person, the configured roots).
 */
async function relayToCaller(
  relay: RoundRelay,
  inputRequests: Record<string, InputRequest>,
  context: InputRoundsContext,
  signal: AbortSignal,
  into: { requests: InputRound['requests']; responses: Record<string, InputResponse> },
): Promise<Record<string, InputRequest>> {
  const toCaller: Record<string, InputRequest> = {};
  const rest: Record<string, InputRequest> = {};
  for (const [key, request] of Object.entries(inputRequests)) {
    const kind = kindOf(request);
    if (kind && relay.answers.has(kind)) toCaller[key] = request;
    else if (kind === 'sampling') await relay.refuse(kind);
    else rest[key] = request;
  }
  if (Object.keys(toCaller).length === 0) return rest;
  const answers = await untilAborted(relay.round(toCaller, signal), signal);
  for (const [key, request] of Object.entries(toCaller)) {
    const kind = kindOf(request)!;
    into.responses[key] = await checkedResponse(key, kind, request, answers[key], context, signal);
    into.requests.push({ kind, answeredBy: 'agent' });
  }
  return rest;
}

function kindOf(request: InputRequest): InputKind | undefined {
  const method = (request as { method?: unknown }).method;
  return method === 'elicitation/create'
    ? 'elicitation'
    : method === 'sampling/createMessage'
      ? 'sampling'
      : method === 'roots/list'
        ? 'roots'
        : undefined;
}

/** The caller's response to one relayed request, checked as its kind requires (an elicitation left unanswered counts as cancelled). */
async function checkedResponse(
  key: string,
  kind: InputKind,
  request: InputRequest,
  response: unknown,
  context: InputRoundsContext,
  signal: AbortSignal,
): Promise<InputResponse> {
  if (kind === 'elicitation') {
    const params = validParams(key, 'ElicitRequestParams', request.params) as ElicitRequestParams;
    const answered = (response ?? { action: 'cancel' }) as ElicitResult;
    return withFormDefaults(params, await agentElicitation(context, params, () => Promise.resolve(answered), signal));
  }
  if (kind === 'sampling') {
    const params = validParams(key, 'CreateMessageRequestParams', request.params) as SamplingParams;
    const answered = (typeof response === 'object' && response !== null ? response : { content: [] }) as SamplingResult;
    return agentSampling(context, params, () => Promise.resolve(answered), signal);
  }
  const roots = specTypeSchemas.ListRootsResult['~standard'].validate(response ?? {});
  if (roots.issues)
    throw new MCPProtocolError(
      context.serverId,
      `the agent's answer to the server's roots/list request is not a list of roots`,
    );
  context.note(`roots/list answered with ${roots.value.roots.length} root(s) (answered by the agent)`);
  return roots.value;
}

/**
 * The call ended while a question was being answered: fails the way an aborted SDK request does
 * (errorMapping.ts words it: cancelled by the caller, or past the call's total deadline).
 */
function throwIfAborted(signal: AbortSignal): void {
  if (!signal.aborted) return;
  const reason: unknown = signal.reason;
  throw reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason));
}

/** `work`, or the call's end if that comes first (`work` is then left to settle on its own). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Answers one embedded request, through the call's hook, the person, or the configuration. */
async function answer(
  key: string,
  request: InputRequest,
  context: InputRoundsContext,
  signal: AbortSignal,
): Promise<Answered> {
  const method = (request as { method?: unknown }).method;
  switch (method) {
    case 'roots/list': {
      const roots = rootsOf(context.roots());
      context.note(`roots/list answered with ${roots.length} ${roots.length === 1 ? 'folder' : 'folders'}`);
      return { response: { roots }, kind: 'roots', answeredBy: 'client' };
    }
    case 'elicitation/create': {
      const params = validParams(key, 'ElicitRequestParams', request.params) as ElicitRequestParams;
      if (context.serverRequests?.elicit)
        return {
          response: withFormDefaults(
            params,
            await agentElicitation(context, params, context.serverRequests.elicit, signal),
          ),
          kind: 'elicitation',
          answeredBy: 'agent',
        };
      const answerer = person(context, 'elicitation');
      const result = await showToPerson(context, signal, (askSignal) => answerElicitation(answerer, params, askSignal));
      return { response: withFormDefaults(params, result), kind: 'elicitation', answeredBy: 'person' };
    }
    case 'sampling/createMessage': {
      const params = validParams(key, 'CreateMessageRequestParams', request.params) as SamplingParams;
      if (context.serverRequests?.sample)
        return {
          response: await agentSampling(context, params, context.serverRequests.sample, signal),
          kind: 'sampling',
          answeredBy: 'agent',
        };
      const answerer = person(context, 'sampling');
      return {
        response: await showToPerson(context, signal, (askSignal) => answerSampling(answerer, params, askSignal)),
        kind: 'sampling',
        answeredBy: 'person',
      };
    }
    default:
      throw new SdkError(
        SdkErrorCode.InvalidResult,
        `Invalid input request '${key}': ${JSON.stringify(String(method)).slice(0, 80)} is not an embedded request this client answers`,
      );
  }
}

/** The embedded request's params, as the spec shapes them; a malformed one fails the call. */
function validParams(
  key: string,
  type: 'ElicitRequestParams' | 'CreateMessageRequestParams',
  params: unknown,
): unknown {
  const checked = specTypeSchemas[type]['~standard'].validate(params ?? {});
  if (checked.issues)
    throw new SdkError(
      SdkErrorCode.InvalidResult,
      `Invalid input request '${key}': ${checked.issues
        .map((issue) => issue.message)
        .join('; ')
        .slice(0, 200)}`,
    );
  return checked.value;
}

/** Asks the person while the call waits (its deadline paused); the dialog ends with the call. */
function showToPerson<T>(
  context: InputRoundsContext,
  signal: AbortSignal,
  serverRequest: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const wait = context.personWait?.();
  return whilePersonAnswers(wait, wait?.signal ? undefined : signal, serverRequest);
}

function person(context: InputRoundsContext, kind: 'elicitation' | 'sampling'): PersonAnswerer {
  if (!context.person)
    throw new SdkError(
      SdkErrorCode.CapabilityNotSupported,
      `The server asked for ${kind}, and nobody here can answer it.`,
    );
  return context.person;
}

/** A form's defaults filled into an accepted answer where it left them out (the client declares `applyDefaults`). */
function withFormDefaults(params: ElicitRequestParams, result: ElicitResult): ElicitResult {
  if (params.mode === 'url' || result.action !== 'accept') return result;
  const content: Record<string, unknown> = { ...(result.content ?? {}) };
  for (const [name, property] of Object.entries(params.requestedSchema.properties)) {
    const fallback = (property as { default?: unknown }).default;
    if (content[name] === undefined && fallback !== undefined) content[name] = fallback;
  }
  return { ...result, content: content as ElicitResult['content'] };
}
