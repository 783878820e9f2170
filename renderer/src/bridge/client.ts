/**
 * The typed client over a transport: requests and responses are typed by the contract, responses
 * and event payloads are validated with its schemas (so a component never sees a shape the
 * contract does not promise), and failures throw a BridgeError.
 */
import type { ChannelName, EventName, EventOf, RequestOf, ResponseOf } from '../../../shared/contract.js';
import { channels, events } from '../../../shared/contract.js';
import { BRIDGE_ERROR, tooLargeIssueOf } from '../../../shared/bridge.js';
import { fieldErrorsOf } from '../../../shared/serverConfig.js';
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
      const { request: requestSchema, response: responseSchema } = channels[channel];
      // Catch our own mistakes before they cross; main validates again either way.
      const checked = requestSchema.safeParse(request);
      if (!checked.success) {
        // A contract size limit (tool arguments) is the person's input, not the app's mistake.
        const tooLarge = tooLargeIssueOf(checked.error);
        if (tooLarge) {
          throw new BridgeError({
            code: BRIDGE_ERROR.requestTooLarge,
            message: `${tooLarge.message} Nothing was sent.`,
            details: { limitBytes: tooLarge.limitBytes, sizeBytes: tooLarge.sizeBytes, fieldErrors: fieldErrorsOf(checked.error) },
          });
        }
        throw new BridgeError({
          code: LOCAL_ERROR.badRequest,
          message: `The app built an invalid "${channel}" request.`,
          details: { fieldErrors: fieldErrorsOf(checked.error) },
        });
      }
      const result = await transport.call(channel, request);
      if (!result.ok) throw new BridgeError(result.error);
      const parsed = responseSchema.safeParse(result.result);
      if (!parsed.success) {
        throw new BridgeError({ code: LOCAL_ERROR.badResponse, message: `The "${channel}" response did not match the contract.` });
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
