/**
 * A BridgeClient double for the renderer's slices: every call waits until the test answers it
 * (so the order of responses is the test's to choose, e.g. a stale page arriving late), and the
 * test emits main's events and connection changes itself.
 */
import type { BridgeClient } from '../../../renderer/src/bridge/client.js';
import { BridgeError } from '../../../renderer/src/bridge/errors.js';
import { observable } from '../../../renderer/src/bridge/observable.js';
import type { ConnectionState } from '../../../renderer/src/bridge/transport.js';
import type { ChannelName, EventName, EventOf, RequestOf, ResponseOf } from '../../../shared/contract.js';
import type { ErrorCode } from '../../../shared/errors.js';

export interface PendingCall<C extends ChannelName = ChannelName> {
  channel: C;
  request: RequestOf<C>;
  resolve(response: ResponseOf<C>): void;
  reject(error: BridgeError): void;
  settled: boolean;
}

export class FakeClient implements BridgeClient {
  readonly calls: PendingCall[] = [];
  readonly connection = observable<ConnectionState>({ status: 'connecting' });
  readonly #listeners = new Map<string, Set<(payload: never) => void>>();

  call<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>> {
    return new Promise<ResponseOf<C>>((resolve, reject) => {
      const pending: PendingCall<C> = {
        channel,
        request,
        settled: false,
        resolve: (response) => {
          pending.settled = true;
          resolve(response);
        },
        reject: (error) => {
          pending.settled = true;
          reject(error);
        },
      };
      this.calls.push(pending as unknown as PendingCall);
    });
  }

  on<E extends EventName>(event: E, listener: (payload: EventOf<E>) => void): () => void {
    const set = this.#listeners.get(event) ?? new Set();
    set.add(listener as (payload: never) => void);
    this.#listeners.set(event, set);
    return () => void set.delete(listener as (payload: never) => void);
  }

  retryNow(): void {}

  /** Delivers one of main's events to every listener. */
  emit<E extends EventName>(event: E, payload: EventOf<E>): void {
    for (const listener of this.#listeners.get(event) ?? []) (listener as (p: EventOf<E>) => void)(payload);
  }

  /** The calls made on a channel, oldest first. */
  callsTo<C extends ChannelName>(channel: C): PendingCall<C>[] {
    return this.calls.filter((c) => c.channel === channel) as unknown as PendingCall<C>[];
  }

  /** The latest call on a channel (answered or not); throws when there is none. */
  latest<C extends ChannelName>(channel: C): PendingCall<C> {
    const found = this.callsTo(channel).at(-1);
    if (!found) throw new Error(`no "${channel}" call`);
    return found;
  }

  /** The oldest unanswered call on a channel; throws when there is none (the slice did not call). */
  next<C extends ChannelName>(channel: C): PendingCall<C> {
    const found = this.callsTo(channel).find((c) => !c.settled);
    if (!found)
      throw new Error(
        `no pending "${channel}" call (calls so far: ${this.calls.map((c) => c.channel).join(', ') || 'none'})`,
      );
    return found;
  }
}

/** A BridgeError as main would send it. */
export function bridgeError(code: ErrorCode, message = `failed: ${code}`): BridgeError {
  return new BridgeError({ code, message });
}

/** Lets promise continuations (the slice's code after an awaited call) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}
