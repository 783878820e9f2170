/** `traces.*`: the trace list, one trace's events, and its export. */
import type { Tracer } from '../../tracing/tracer.js';
import type { Handlers } from '../dispatcher.js';
import { AppError } from '../errors.js';
import { withoutUndefined } from './optional.js';

export function traceHandlers(deps: {
  tracer: Tracer;
}): Pick<Handlers, 'traces.list' | 'traces.get' | 'traces.export'> {
  const { tracer } = deps;
  return {
    'traces.list': (query) => tracer.list(withoutUndefined(query)),
    'traces.get': async ({ traceId }) => {
      const detail = await tracer.detail(traceId);
      if (!detail) throw new AppError('not_found', `There is no trace "${traceId}".`);
      return detail;
    },
    'traces.export': ({ traceId }) => tracer.exportOne(traceId),
  };
}
