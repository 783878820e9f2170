/**
 * A test double for the person behind the dialogs: it implements the MCP layer's
 * `ServerAskHandlers` and hands each elicitation or sampling request to the test, which answers
 * it when it chooses (`await asks.next()`, then `.answer(...)`). Tests only; the app's own
 * handlers are the ask broker (electron/app/asks/broker.ts).
 */
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationAsk, SamplingAnswer, SamplingAsk, ServerAskHandlers } from '../../electron/mcp/serverAsks.js';

export type ScriptedAsk =
  | { kind: 'elicitation'; ask: ElicitationAsk; signal: AbortSignal; answer(result: ElicitResult): void }
  | { kind: 'sampling'; ask: SamplingAsk; signal: AbortSignal; answer(result: SamplingAnswer): void };

export class ScriptedAsks implements ServerAskHandlers {
  /** Every request received, in order. */
  readonly received: ScriptedAsk[] = [];
  private readonly queued: ScriptedAsk[] = [];
  private readonly waiters: Array<(ask: ScriptedAsk) => void> = [];

  elicit(ask: ElicitationAsk, signal: AbortSignal): Promise<ElicitResult> {
    return new Promise((resolve) => this.push({ kind: 'elicitation', ask, signal, answer: resolve }));
  }

  sample(ask: SamplingAsk, signal: AbortSignal): Promise<SamplingAnswer> {
    return new Promise((resolve) => this.push({ kind: 'sampling', ask, signal, answer: resolve }));
  }

  /** The next request not yet taken (waits for it to arrive). */
  next(): Promise<ScriptedAsk> {
    const ready = this.queued.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private push(ask: ScriptedAsk): void {
    this.received.push(ask);
    const waiter = this.waiters.shift();
    if (waiter) waiter(ask);
    else this.queued.push(ask);
  }
}
