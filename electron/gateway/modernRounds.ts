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
 * Every continuation is answered, however many arrive at once with the same state (an agent
 * retrying): the state names which question it answers, the first continuation of that question
 * answers it, and every other copy — sent at the same time, or late after the next question —
 * answers nothing and gets the same next step: the next question, or the call's outcome.
 *
 * A 2026-07-28 server's round reaches the agent whole (`round`: every request of a kind the agent
 * declared, under the server's own keys; mcp/inputRounds.ts decides which), and only the keys it
 * asked are taken back from the agent's `inputResponses`. Responses an agent sends with its first
 * request answer the first round when they cover its keys. A sampling request the agent did not
 * declare fails its round with -32021 (`refuse`), and the call ends downstream. A 2025 server's
 * question (`elicit`, `sample`) is one per round, under the key `question`. Proved through real
 * processes by test/gateway/roundRelay.test.ts and downstreamServerRequests.test.ts.
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
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  createRequestStateCodec,
  inputRequired,
} from '@modelcontextprotocol/server';
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
/** A 2026-07-28 server's round, relayed whole to the agent (the server's keys; responses by key). */
export type AgentRound = (
  requests: Record<string, InputRequest>,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;
/** The agent lacks what the server asked for (`capability`): its round fails with -32021. */
export type AgentRefuse = (capability: 'elicitation' | 'sampling' | 'roots') => Promise<never>;
/**
 * How a round reaches the downstream's questions: a question of a 2025 server one at a time
 * (`elicit`, `sample`), a 2026-07-28 server's round whole under its own keys (`round`), and the
 * refusal of what the agent did not declare (`refuse`: the agent's round fails with -32021).
 */
interface AgentAnswerers {
  elicit: AgentElicit;
  sample: AgentSample;
  round: AgentRound;
  refuse: AgentRefuse;
}

/** How long a flight waits for the agent's next round. */
const FLIGHT_TTL_MS = 5 * 60_000;
/** How long a flight that asked the agent something is kept after its end (its outcome answers late copies of the last answer). */
const ENDED_FLIGHT_MS = 60_000;
/** The key of a 2025 server's question in `inputRequests` / `inputResponses` (a 2026-07-28 server's keep their own). */
const QUESTION_KEY = 'question';

type Run = (
  key: { sessionId: string; callId: string },
  answerers: AgentAnswerers,
  signal: AbortSignal,
) => Promise<unknown>;

interface SealedRound {
  flight: string;
  agentId: string;
  key: { sessionId: string; callId: string };
  /** Which of the flight's questions this state asked (1 for the first): only its answer answers that question. */
  asked?: number;
}

interface Flight {
  agentId: string;
  controller: AbortController;
  /** The call's final result, once it ends (a tool's result, or a prompt's). */
  outcome: Promise<unknown>;
  /** The questions waiting for the agent's answer, if any: the embedded requests by key, and how the agent's responses settle them. */
  question?: { requests: Record<string, InputRequest>; answer(responses: Record<string, unknown>): void };
  /** The agent's round fails with this (it lacks a capability the server asked for); the call is ended. */
  refused?: ProtocolError;
  /** Responses the agent sent with its first round (no state yet): they answer the first questions under the same keys. */
  preanswered?: Record<string, unknown>;
  /** How many questions the flight has asked (the current one's number). */
  asked: number;
  /** The call ended (its outcome is settled). */
  settled: boolean;
  /** Wakes every round that waits for the next question or the end (an agent may send the same continuation many times at once). */
  readonly wake: Set<() => void>;
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
  async round<T = CallToolResult>(
    agentId: string,
    key: { sessionId: string; callId: string },
    ctx: ServerContext,
    run: (key: { sessionId: string; callId: string }, answerers: AgentAnswerers, signal: AbortSignal) => Promise<T>,
  ): Promise<T | InputRequiredResult> {
    const sealed = ctx.mcpReq.requestState<SealedRound>();
    let id: string;
    let flight: Flight | undefined;
    /** This request started the flight or answered its question: its going away ends the call (a copy's does not). */
    let owner = true;
    if (sealed !== undefined) {
      if (typeof sealed !== 'object' || sealed.agentId !== agentId)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'This requestState belongs to another agent.');
      key = sealed.key;
      id = sealed.flight;
      const existing = this.flights.get(id);
      if (existing) {
        flight = existing;
        // Only the first continuation of the question this state asked answers it; a copy sent at
        // the same time, or a late one after the next question, answers nothing and waits with it
        // for the same next step (the next question, or the call's outcome).
        const question = flight.question;
        owner = question !== undefined && (sealed.asked ?? 1) === flight.asked;
        if (owner) {
          flight.question = undefined;
          question?.answer(ctx.mcpReq.inputResponses ?? {});
        }
      } else {
        // The flight is gone: its answer has nothing left to answer. The same key runs again —
        // which the checkpoint answers (the stored result, or "in progress or unknown").
        id = randomUUID();
        flight = this.start(id, agentId, key, run as Run);
      }
    } else {
      id = randomUUID();
      flight = this.start(id, agentId, key, run as Run, ctx.mcpReq.inputResponses);
    }
    clearTimeout(flight.timer);
    // The agent going away during a round ends the call, as closing a stream does.
    const onAbort = (): void => flight.controller.abort();
    if (owner) ctx.mcpReq.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const next = await this.next(flight);
      if (next === 'refused') {
        // The agent cannot answer what the server asked: it is told (-32021), and the call ends downstream.
        clearTimeout(flight.timer);
        this.flights.delete(id);
        flight.controller.abort();
        throw flight.refused!;
      }
      if (next === 'done') {
        // A flight that asked is kept a little after its end, so that a copy of its last answer still gets its outcome.
        clearTimeout(flight.timer);
        if (flight.asked === 0) this.flights.delete(id);
        else {
          flight.timer = setTimeout(() => this.flights.delete(id), ENDED_FLIGHT_MS);
          flight.timer.unref();
        }
        return (await flight.outcome) as T;
      }
      clearTimeout(flight.timer);
      flight.timer = setTimeout(() => {
        this.flights.delete(id);
        flight.controller.abort();
      }, FLIGHT_TTL_MS);
      flight.timer.unref();
      const state = await this.codec.mint({ flight: id, agentId, key, asked: flight.asked });
      return inputRequired({ inputRequests: next.requests, requestState: state });
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
    run: Run,
    preanswered?: Record<string, unknown>,
  ): Flight {
    const controller = new AbortController();
    const flight: Flight = {
      agentId,
      controller,
      asked: 0,
      settled: false,
      wake: new Set(),
      outcome: Promise.resolve({ content: [] }),
      ...(preanswered && Object.keys(preanswered).length > 0 ? { preanswered } : {}),
    };
    const wakeAll = (): void => {
      const waiting = [...flight.wake];
      flight.wake.clear();
      for (const wake of waiting) wake();
    };
    /** Parks questions until the agent's next round answers them; `settle` turns the agent's responses into the downstream's answer. */
    const park = <T>(
      requests: Record<string, InputRequest>,
      settle: (responses: Record<string, unknown>) => T,
      signal: AbortSignal,
    ): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        const cancelled = (): void => reject(new Error('The question was withdrawn.'));
        if (signal.aborted || controller.signal.aborted) return cancelled();
        // Answered already: the agent sent these keys with its first round (a stateless client may).
        const early = flight.preanswered;
        flight.preanswered = undefined;
        if (early && Object.keys(requests).every((key) => key in early)) return resolve(settle(early));
        signal.addEventListener('abort', cancelled, { once: true });
        controller.signal.addEventListener('abort', cancelled, { once: true });
        flight.asked++;
        flight.question = {
          requests,
          answer: (response) => {
            try {
              resolve(settle(response));
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          },
        };
        wakeAll();
      });
    const answerers: AgentAnswerers = {
      // An answer that is not one (missing or malformed) counts as the agent cancelling.
      elicit: (params, signal) =>
        park(
          {
            [QUESTION_KEY]:
              params.mode === 'url'
                ? inputRequired.elicitUrl(params)
                : inputRequired.elicit(params as ElicitRequestFormParams),
          },
          (responses): ElicitResult => {
            const answer = ElicitAnswer.safeParse(responses[QUESTION_KEY]);
            return answer.success ? (answer.data as ElicitResult) : { action: 'cancel' };
          },
          signal,
        ),
      // A sampling answer must be one: anything else fails the downstream's request.
      sample: (params, signal) =>
        park(
          { [QUESTION_KEY]: inputRequired.createMessage(params) },
          (responses): SamplingResult => {
            const response = responses[QUESTION_KEY];
            if (!SamplingAnswer.safeParse(response).success)
              throw new Error('The agent did not answer the sampling request with a message.');
            return response as SamplingResult;
          },
          signal,
        ),
      // A 2026-07-28 server's round, whole: only the keys it asked are kept (others the agent sent are ignored).
      round: (requests, signal) =>
        park(
          requests,
          (responses) => Object.fromEntries(Object.keys(requests).map((key) => [key, responses[key]])),
          signal,
        ),
      refuse: (capability) => {
        flight.refused = new MissingRequiredClientCapabilityError(
          { requiredCapabilities: { [capability]: {} } },
          `The server behind asked for ${capability}, which this agent did not declare in its clientCapabilities.`,
        );
        wakeAll();
        return Promise.reject(new Error(`The agent cannot answer ${capability}.`));
      },
    };
    flight.outcome = run(key, answerers, controller.signal).finally(() => {
      flight.settled = true;
      wakeAll();
    });
    // Its failure is the round's to report; never an unhandled rejection while nobody waits.
    flight.outcome.catch(() => undefined);
    this.flights.set(id, flight);
    return flight;
  }

  /** Waits for the flight's next question, or its end (both wake it; checked and armed in one turn, so neither is missed). */
  private async next(flight: Flight): Promise<'done' | 'refused' | { requests: Record<string, InputRequest> }> {
    for (;;) {
      if (flight.refused) return 'refused';
      if (flight.question) return { requests: flight.question.requests };
      if (flight.settled) return 'done';
      await new Promise<void>((resolve) => flight.wake.add(resolve));
    }
  }
}
