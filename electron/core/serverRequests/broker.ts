/**
 * Carries what servers ask the person (elicitation, sampling) to the GUI and the answers back,
 * the way approvals travel: each request gets a one-time random id and is shown as a dialog naming
 * its server; an answer is accepted once, for a request still open — a stale, repeated or unknown id
 * is refused. A request closes without an answer when its time runs out (an elicitation then counts
 * as cancelled, a sampling request as rejected), when the tool call that asked ends (timed out,
 * cancelled, failed: the dialog says the call ended — a call's deadline pauses while its dialog is
 * open, so this is not the server's timeout racing the person), or when the server withdraws it or
 * its connection closes. Nothing is ever answered for the person.
 *
 * The answers are checked here (main), whatever the renderer did: the action must fit the request,
 * and form values must fit the server's schema — if they do not, the request stays open and the
 * dialog shows the field errors. Answers are never logged, traced or stored.
 */
import { randomUUID } from 'node:crypto';
import type { ElicitResult } from '@modelcontextprotocol/client';
import type { ServerRequestAnswer, ServerRequestView } from '../../../shared/serverRequests.js';
import { ANSWERS_OF } from '../../../shared/serverRequests.js';
import type { EventName, EventOf } from '../../../shared/contract.js';
import type {
  ElicitationServerRequest,
  SamplingAnswer,
  SamplingServerRequest,
  ServerRequestHandlers,
} from '../../mcp/serverRequests.js';
import { ServerRequestCallEnded } from '../../mcp/serverRequests.js';
import { AppError, ValidationFailedError } from '../errors.js';
import { checkFormAnswer } from './formAnswer.js';
import { elicitationView, samplingView, showable } from './views.js';

type Emit = <E extends EventName>(event: E, payload: EventOf<E>) => void;
type ClosedOutcome = 'expired' | 'cancelled' | 'call_ended';

/** How long a request stays open without an answer. */
const DEFAULT_SERVER_REQUEST_TIMEOUT_MS = 5 * 60_000;

interface OpenServerRequest {
  view: ServerRequestView;
  /** Checks an answer (throws when it does not fit) and settles the request with it. */
  answer(answer: ServerRequestAnswer): void;
}

export interface ServerRequestBrokerOptions {
  /** The name the person gave a server, for the dialog. */
  serverName: (serverId: string) => string;
  timeoutMs?: number;
}

export class ServerRequestBroker implements ServerRequestHandlers {
  private readonly open = new Map<string, OpenServerRequest>();
  private readonly timeoutMs: number;

  constructor(
    private readonly emit: Emit,
    private readonly options: ServerRequestBrokerOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SERVER_REQUEST_TIMEOUT_MS;
  }

  readonly elicit = (serverRequest: ElicitationServerRequest, signal: AbortSignal): Promise<ElicitResult> =>
    this.serverRequest<ElicitResult>(
      serverRequest.serverId,
      signal,
      (common) => elicitationView(serverRequest, common),
      {
        settle: (answer) => {
          if (answer.action === 'decline' || answer.action === 'cancel') return { action: answer.action };
          if (answer.action !== 'accept') throw wrongAction();
          if (serverRequest.mode === 'url') {
            if (answer.content && Object.keys(answer.content).length > 0)
              throw new AppError('invalid_request', 'A link takes no values: accept, decline or cancel it.');
            return { action: 'accept' };
          }
          const checked = checkFormAnswer(serverRequest.requestedSchema, answer.content ?? {});
          if (!checked.ok)
            throw new ValidationFailedError(
              'Some values do not fit the form; nothing was sent. Correct them and accept again.',
              checked.fieldErrors,
            );
          return { action: 'accept', content: checked.content };
        },
        // Nobody answered (or the server gave up): the spec's "dismissed without an explicit choice".
        closed: () => ({ action: 'cancel' }),
      },
    );

  readonly sample = (serverRequest: SamplingServerRequest, signal: AbortSignal): Promise<SamplingAnswer> =>
    this.serverRequest<SamplingAnswer>(
      serverRequest.serverId,
      signal,
      (common) => samplingView(serverRequest, common),
      {
        settle: (answer) => {
          if (answer.action === 'respond') return { action: 'respond', text: answer.text, model: answer.model };
          if (answer.action === 'reject') return { action: 'reject', reason: 'person' };
          throw wrongAction();
        },
        closed: (outcome) => ({ action: 'reject', reason: outcome === 'expired' ? 'expired' : 'cancelled' }),
      },
    );

  /** Answers one open request, once. */
  answer(requestId: string, answer: ServerRequestAnswer): void {
    const entry = this.open.get(requestId);
    if (!entry) {
      throw new AppError(
        'stale_ask',
        'This request is no longer open: it was already answered, it expired, the tool call that asked has ended, or the server withdrew it. Your answer was not sent.',
      );
    }
    const allowed = ANSWERS_OF[entry.view.kind];
    if (!allowed.includes(answer.action)) {
      throw new AppError(
        'invalid_request',
        `"${answer.action}" does not answer this request; it takes ${allowed.join(', ')}.`,
      );
    }
    entry.answer(answer);
  }

  /** The open requests, oldest first. */
  list(): ServerRequestView[] {
    return [...this.open.values()].map((entry) => entry.view).sort((a, b) => a.expiresAt - b.expiresAt);
  }

  private serverRequest<T>(
    serverId: string,
    signal: AbortSignal,
    viewOf: (common: Pick<ServerRequestView, 'requestId' | 'serverId' | 'serverName' | 'expiresAt'>) => unknown,
    outcomes: { settle: (answer: ServerRequestAnswer) => T; closed: (outcome: ClosedOutcome) => T },
  ): Promise<T> {
    const requestId = randomUUID();
    return new Promise<T>((resolve) => {
      const common = {
        requestId,
        serverId,
        serverName: this.options.serverName(serverId),
        expiresAt: Date.now() + this.timeoutMs,
      };
      // Checked first: a request no dialog can show is refused at once (showable throws).
      const view = showable(viewOf(common));
      if (signal.aborted)
        return resolve(outcomes.closed(signal.reason instanceof ServerRequestCallEnded ? 'call_ended' : 'cancelled'));

      const finish = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.open.delete(requestId);
      };
      const close = (outcome: ClosedOutcome): void => {
        if (!this.open.has(requestId)) return;
        finish();
        this.emit('serverRequest.closed', { requestId, outcome });
        resolve(outcomes.closed(outcome));
      };
      // The call that asked ended (the dialog says so), or the server withdrew the request.
      const onAbort = (): void => close(signal.reason instanceof ServerRequestCallEnded ? 'call_ended' : 'cancelled');
      const timer = setTimeout(() => close('expired'), this.timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.open.set(requestId, {
        view,
        answer: (answer) => {
          const value = outcomes.settle(answer); // throws (and keeps the request open) when it does not fit
          finish();
          this.emit('serverRequest.closed', { requestId, outcome: 'answered' });
          resolve(value);
        },
      });
      this.emit('serverRequest.opened', view);
    });
  }
}

function wrongAction(): AppError {
  return new AppError('invalid_request', 'This answer does not fit the request.');
}
