/**
 * Multi-round calls of modern (2026-07-28) agents. When a downstream server asks a question
 * during an agent's call (an elicitation, or a sampling request) and the app's call path hands it
 * to the agent (`GatewayCalls.call`'s `ask` / `sample`), a legacy agent gets it as a real server→client request on its
 * session; a modern agent has no such channel, so its request is answered `input_required` with
 * the question and the gateway's own `requestState`, and the agent retries the same call with its
 * answer. The downstream call itself keeps running between the rounds (it waits for the answer):
 * it lives here, in a flight named by a random id.
 *
 * The state is sealed (HMAC, v2's `createRequestStateCodec`, a key made at start): it names the
 * flight, the agent and the call's idempotency key, so the retry is the same call — one
 * permission decision, one checkpoint, one trace. Tampered or expired state never reaches the
 * handler (the SDK answers -32602); state minted for another agent is refused here. A retry whose
 * flight is gone (the app restarted, the agent was closed, or it came back after FLIGHT_TTL_MS)
 * runs the same key again as a first round, which the checkpoint answers (the stored result, or
 * "in progress or unknown").
 * A flight nobody continues is aborted after FLIGHT_TTL_MS, which cancels its question downstream.
 *
 * The app's call path does not use the hooks yet (CallService and the registry's question
 * handlers are not the gateway's): until they do, a downstream's questions go to the person in
 * MiniHarness, as before; test/gateway/agentServerRequests.test.ts drives the hooks with a call-path double.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type {
  CallToolResult,
  CreateMessageRequestParamsBase,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  InputRequest,
  InputRequiredResult,
  ServerContext,
} from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, createRequestStateCodec, inputRequired } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** A question of a downstream server, as the call path hands it to the agent. */
export type AgentQuestion = ElicitRequestFormParams | ElicitRequestURLParams;
export type AgentElicit = (question: AgentQuestion, signal: AbortSignal) => Promise<ElicitResult>;
// eslint-disable-next-line @typescript-eslint/no-deprecated -- sampling is deprecated in 2026-07-28 (SEP-2577) but still in the spec: downstream servers still ask it
type SamplingRequest = CreateMessageRequestParamsBase;
// eslint-disable-next-line @typescript-eslint/no-deprecated -- see SamplingRequest
export type SamplingResult = CreateMessageResult;
/** A sampling request of a downstream server, for the agent's model. */
export type AgentSample = (request: SamplingRequest, signal: AbortSignal) => Promise<SamplingResult>;
/** How a round reaches the downstream's questions: both hooks of one flight. */
interface AgentAnswerers {
  elicit: AgentElicit;
  sample: AgentSample;
}

/** How long a flight waits for the agent's next round. */
const FLIGHT_TTL_MS = 5 * 60_000;
/** The key of the question in `inputRequests` / `inputResponses`. */
const QUESTION_KEY = 'question';

interface SealedRound {
  flight: string;
  agentId: string;
  key: { sessionId: string; callId: string };
}

interface Flight {
  agentId: string;
  controller: AbortController;
  /** The call's final result, once it ends. */
  outcome: Promise<CallToolResult>;
  /** The question waiting for the agent's answer, if any: the embedded request, and how its response settles it. */
  question?: { request: InputRequest; answer(response: unknown): void };
  /** The call ended (its outcome is settled). */
  settled: boolean;
  /** Wakes the round that waits for the next question or the end. */
  wake?: () => void;
  timer?: NodeJS.Timeout;
}

const ElicitAnswer = z.looseObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
});
const SamplingAnswer = z.looseObject({ role: z.literal('assistant'), content: z.unknown(), model: z.string() });

export class ModernRounds {
  private readonly flights = new Map<string, Flight>();
  private readonly codec = createRequestStateCodec<SealedRound>({
    key: randomBytes(32),
    ttlSeconds: FLIGHT_TTL_MS / 1000,
  });
  /** For `ServerOptions.requestState.verify`: refuses tampered or expired state before any handler runs. */
  readonly verify = (state: string, ctx: ServerContext): Promise<SealedRound> => this.codec.verify(state, ctx);

  /**
   * One round of a modern call: the first (no state) starts it with `run`; a continuation (sealed
   * state) answers the flight's question with the agent's response. Resolves with the result, or
   * `input_required` when the downstream asks (again).
   */
  async round(
    agentId: string,
    key: { sessionId: string; callId: string },
    ctx: ServerContext,
    run: (
      key: { sessionId: string; callId: string },
      answerers: AgentAnswerers,
      signal: AbortSignal,
    ) => Promise<CallToolResult>,
  ): Promise<CallToolResult | InputRequiredResult> {
    const sealed = ctx.mcpReq.requestState<SealedRound>();
    let id: string;
    let flight: Flight | undefined;
    if (sealed !== undefined) {
      if (typeof sealed !== 'object' || sealed.agentId !== agentId)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'This requestState belongs to another agent.');
      key = sealed.key;
      id = sealed.flight;
      const existing = this.flights.get(id);
      if (existing) {
        flight = existing;
        const question = flight.question;
        flight.question = undefined;
        question?.answer(ctx.mcpReq.inputResponses?.[QUESTION_KEY]);
      } else {
        // The flight is gone: its answer has nothing left to answer. The same key runs again —
        // which the checkpoint answers (the stored result, or "in progress or unknown").
        id = randomUUID();
        flight = this.start(id, agentId, key, run);
      }
    } else {
      id = randomUUID();
      flight = this.start(id, agentId, key, run);
    }
    clearTimeout(flight.timer);
    // The agent going away during a round ends the call, as closing a stream does.
    const onAbort = (): void => flight.controller.abort();
    ctx.mcpReq.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const next = await this.next(flight);
      if (next === 'done') {
        this.flights.delete(id);
        return await flight.outcome;
      }
      flight.timer = setTimeout(() => {
        this.flights.delete(id);
        flight.controller.abort();
      }, FLIGHT_TTL_MS);
      flight.timer.unref();
      const state = await this.codec.mint({ flight: id, agentId, key });
      return inputRequired({ inputRequests: { [QUESTION_KEY]: next.request }, requestState: state });
    } finally {
      ctx.mcpReq.signal.removeEventListener('abort', onAbort);
    }
  }

  /** The agent was revoked or removed: its flights end, their questions cancelled downstream. */
  closeAgent(agentId: string): void {
    for (const [id, flight] of this.flights) {
      if (flight.agentId !== agentId) continue;
      clearTimeout(flight.timer);
      flight.controller.abort();
      this.flights.delete(id);
    }
  }

  /** Ends every flight (the gateway stops): their questions are cancelled downstream. */
  close(): void {
    for (const flight of this.flights.values()) {
      clearTimeout(flight.timer);
      flight.controller.abort();
    }
    this.flights.clear();
  }

  private start(
    id: string,
    agentId: string,
    key: { sessionId: string; callId: string },
    run: (
      key: { sessionId: string; callId: string },
      answerers: AgentAnswerers,
      signal: AbortSignal,
    ) => Promise<CallToolResult>,
  ): Flight {
    const controller = new AbortController();
    const flight: Flight = { agentId, controller, settled: false, outcome: Promise.resolve({ content: [] }) };
    /** Parks a question until the agent's next round answers it; `settle` turns the agent's response into the downstream's answer. */
    const park = <T>(request: InputRequest, settle: (response: unknown) => T, signal: AbortSignal): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        const cancelled = (): void => reject(new Error('The question was withdrawn.'));
        if (signal.aborted || controller.signal.aborted) return cancelled();
        signal.addEventListener('abort', cancelled, { once: true });
        controller.signal.addEventListener('abort', cancelled, { once: true });
        flight.question = {
          request,
          answer: (response) => {
            try {
              resolve(settle(response));
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          },
        };
        flight.wake?.();
      });
    const answerers: AgentAnswerers = {
      // An answer that is not one (missing or malformed) counts as the agent cancelling.
      elicit: (params, signal) =>
        park(
          params.mode === 'url'
            ? inputRequired.elicitUrl(params)
            : inputRequired.elicit(params as ElicitRequestFormParams),
          (response): ElicitResult => {
            const answer = ElicitAnswer.safeParse(response);
            return answer.success ? (answer.data as ElicitResult) : { action: 'cancel' };
          },
          signal,
        ),
      // A sampling answer must be one: anything else fails the downstream's request.
      sample: (params, signal) =>
        park(
          inputRequired.createMessage(params),
          (response): SamplingResult => {
            if (!SamplingAnswer.safeParse(response).success)
              throw new Error('The agent did not answer the sampling request with a message.');
            return response as SamplingResult;
          },
          signal,
        ),
    };
    flight.outcome = run(key, answerers, controller.signal).finally(() => {
      flight.settled = true;
      flight.wake?.();
    });
    // Its failure is the round's to report; never an unhandled rejection while nobody waits.
    flight.outcome.catch(() => undefined);
    this.flights.set(id, flight);
    return flight;
  }

  /** Waits for the flight's next question, or its end (both wake it; checked and armed in one turn, so neither is missed). */
  private async next(flight: Flight): Promise<'done' | { request: InputRequest }> {
    for (;;) {
      if (flight.question) return { request: flight.question.request };
      if (flight.settled) return 'done';
      await new Promise<void>((resolve) => (flight.wake = resolve));
      flight.wake = undefined;
    }
  }
}
