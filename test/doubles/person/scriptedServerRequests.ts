/**
 * A test double for the person behind the dialogs: it implements the MCP layer's
 * `ServerRequestHandlers` and hands each elicitation or sampling request to the test, which answers
 * it when it chooses (`await asks.next()`, then `.answer(...)`). Tests only; the app's own
 * handlers are the request broker (electron/core/serverRequests/broker.ts).
 */
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type {
  ElicitationServerRequest,
  SamplingAnswer,
  SamplingServerRequest,
  ServerRequestHandlers,
} from '../../../electron/mcp/serverRequests.js';

export type ScriptedServerRequest =
  | {
      kind: 'elicitation';
      serverRequest: ElicitationServerRequest;
      signal: AbortSignal;
      answer(result: ElicitResult): void;
    }
  | {
      kind: 'sampling';
      serverRequest: SamplingServerRequest;
      signal: AbortSignal;
      answer(result: SamplingAnswer): void;
    };

export class ScriptedServerRequests implements ServerRequestHandlers {
  /** Every request received, in order. */
  readonly received: ScriptedServerRequest[] = [];
  private readonly queued: ScriptedServerRequest[] = [];
  private readonly waiters: Array<(serverRequest: ScriptedServerRequest) => void> = [];

  elicit(serverRequest: ElicitationServerRequest, signal: AbortSignal): Promise<ElicitResult> {
    return new Promise((resolve) => this.push({ kind: 'elicitation', serverRequest, signal, answer: resolve }));
  }

  sample(serverRequest: SamplingServerRequest, signal: AbortSignal): Promise<SamplingAnswer> {
    return new Promise((resolve) => this.push({ kind: 'sampling', serverRequest, signal, answer: resolve }));
  }

  /** The next request not yet taken (waits for it to arrive). */
  next(): Promise<ScriptedServerRequest> {
    const ready = this.queued.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private push(serverRequest: ScriptedServerRequest): void {
    this.received.push(serverRequest);
    const waiter = this.waiters.shift();
    if (waiter) waiter(serverRequest);
    else this.queued.push(serverRequest);
  }
}
