/**
 * The typed client over a transport: requests and responses are typed by the contract. Requests
 * are validated once, by main, on arrival; responses and event payloads are validated here with
 * the contract's schemas (so a component never sees a shape the contract does not promise), and
 * failures throw a BridgeError.
 */
import type { ChannelName, EventName, EventOf, RequestOf, ResponseOf } from '../../../shared/contract.js';
import { channels, events } from '../../../shared/contract.js';
import { BridgeError } from './errors.js';
import type { Observable } from './observable.js';
import type { ConnectionState, Transport } from './transport.js';
import { LOCAL_ERROR } from './transport.js';

export interface BridgeClient {
  call<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>>;
  on<E extends EventName>(event: E, listener: (payload: EventOf<E>) => void): () => void;
  readonly connection: Observable<ConnectionState>;
  retryNow(): void;
}

export function createBridgeClient(transport: Transport): BridgeClient {
  return {
    connection: transport.connection,
    retryNow: () => transport.retryNow(),

    async call<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>> {
      // The request is validated once, by main, when it arrives; the answer is validated here.
      const { response: responseSchema } = channels[channel];
      const result = await transport.call(channel, request);
      if (!result.ok) throw new BridgeError(result.error);
      const parsed = responseSchema.safeParse(result.result);
      if (!parsed.success) {
        throw new BridgeError({
          code: LOCAL_ERROR.badResponse,
          message: `The answer to “${channel}” was not in the form this page expects (is the page older than the app? Reload it).`,
        });
      }
      return parsed.data as ResponseOf<C>;
    },

    on<E extends EventName>(event: E, listener: (payload: EventOf<E>) => void): () => void {
      const schema = events[event];
      return transport.subscribe(event, (payload) => {
        const parsed = schema.safeParse(payload);
        if (parsed.success) listener(parsed.data as EventOf<E>);
        else console.warn(`[bridge] dropped a "${event}" event that does not match the contract`);
      });
    },
  };
}
