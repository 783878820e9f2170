/**
 * The one generic binding on the main side: looks a channel up in the contract, validates the
 * payload with its request schema, runs the handler, parses the result through the response
 * schema (stripping anything the contract does not name), and turns every failure into one
 * ErrorShape. Transports (Electron IPC, the WebSocket bridge) call `dispatch` and nothing else.
 */
import type { DispatchResult } from '../../shared/bridge.js';
import type { ChannelName, ParsedRequestOf, ResponseOf } from '../../shared/contract.js';
import { channels, isChannelName } from '../../shared/contract.js';
import { toErrorShape } from './errors.js';

export type Handlers = { [C in ChannelName]: (request: ParsedRequestOf<C>) => Promise<ResponseOf<C>> | ResponseOf<C> };

export interface DispatcherOptions {
  /** Removes known secret values from error messages. */
  redact?: (text: string) => string;
  /** The trace of a failed tool call, so the GUI can link to it. */
  traceIdOf?: (error: unknown) => string | undefined;
  /** Called with errors that are not the caller's fault (a handler returned a bad response). */
  onInternalError?: (channel: string, error: unknown) => void;
}

export function createDispatcher(
  handlers: Handlers,
  options: DispatcherOptions = {},
): (channel: unknown, payload: unknown) => Promise<DispatchResult> {
  const redact = options.redact ?? ((t: string) => t);
  return async (channel, payload) => {
    if (!isChannelName(channel)) {
      return {
        ok: false,
        error: {
          code: 'unknown_channel',
          message: `There is no channel named ${JSON.stringify(String(channel).slice(0, 100))}.`,
        },
      };
    }
    const spec = channels[channel];
    const parsed = spec.request.safeParse(payload);
    if (!parsed.success) return { ok: false, error: toErrorShape(parsed.error, redact) };
    let result: unknown;
    try {
      const handler = handlers[channel] as (request: unknown) => unknown;
      result = await handler(parsed.data);
    } catch (error) {
      return { ok: false, error: toErrorShape(error, redact, options.traceIdOf?.(error)) };
    }
    const checked = spec.response.safeParse(result);
    if (!checked.success) {
      options.onInternalError?.(channel, checked.error);
      return {
        ok: false,
        error: { code: 'internal', message: `The main process produced an invalid answer for ${channel}.` },
      };
    }
    return { ok: true, result: checked.data };
  };
}
