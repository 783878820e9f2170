/**
 * Settings → Observability (the OpenTelemetry export): 'observability.get' / '.set' / '.test',
 * and the Traces view's link to the exported trace ('observability.traceLink').
 */
import type { ErrorShape, ObservabilityView, RequestOf, ResponseOf } from '../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator } from '../types.js';

export interface ObservabilitySlice {
  observability: ObservabilityView | undefined;
  loadObservability(): Promise<void>;
  /** Saves and applies; resolves to the refusal (with its field errors) when refused. */
  saveObservability(request: RequestOf<'observability.set'>): Promise<ErrorShape | undefined>;
  /** Sends a test span to the saved collector; what it answered. */
  testObservability(): Promise<ResponseOf<'observability.test'>>;
  /** The exported trace id of a trace, and its viewer link when a viewer URL is set. */
  traceLink(traceId: string): Promise<ResponseOf<'observability.traceLink'>>;
}

export const createObservabilitySlice: ClientSliceCreator<ObservabilitySlice> = (client) => (set) => ({
  observability: undefined,
  async loadObservability() {
    set({ observability: await client.call('observability.get', {}) }, false, 'observability/loaded');
  },
  async saveObservability(request) {
    try {
      set({ observability: await client.call('observability.set', request) }, false, 'observability/saved');
      return undefined;
    } catch (error) {
      return error instanceof BridgeError ? error.toShape() : { code: 'internal', message: messageOf(error) };
    }
  },
  testObservability: () => client.call('observability.test', {}),
  traceLink: (traceId) => client.call('observability.traceLink', { traceId }),
});
