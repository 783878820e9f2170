/** `observability.*`: Settings → Observability (the OpenTelemetry export), its test span and the Traces view's link. */
import type { Handlers } from '../dispatcher.js';
import type { ObservabilityService } from '../observabilityService.js';

export function observabilityHandlers(deps: {
  observability: ObservabilityService;
}): Pick<Handlers, 'observability.get' | 'observability.set' | 'observability.test' | 'observability.traceLink'> {
  const { observability } = deps;
  return {
    'observability.get': () => observability.view(),
    'observability.set': (request) => observability.set(request),
    'observability.test': () => observability.test(),
    'observability.traceLink': ({ traceId }) => observability.traceLink(traceId),
  };
}
