/**
 * The core's contract events on their way to the hosts' listeners (a window, a browser page):
 * each payload is checked against the contract's event schema and redacted of every known secret
 * before any listener sees it. With nobody listening, nothing is validated or sent.
 */
import type { EventName, EventOf } from '../../shared/contract.js';
import { events as eventSchemas } from '../../shared/contract.js';

export type EventListener = (event: EventName, payload: unknown) => void;

export class EventHub {
  private readonly listeners = new Set<EventListener>();

  /** `redact` removes known secret values from a payload (the tracer's set of secrets). */
  constructor(private readonly redact: <T>(value: T) => T) {}

  /** Someone will see an event: a view worth building. */
  get listening(): boolean {
    return this.listeners.size > 0;
  }

  readonly emit = <E extends EventName>(event: E, payload: EventOf<E>): void => {
    // No window or page is listening (agents calling through the gateway with the GUI closed):
    // nothing to validate, redact or send — a third of the app's zod time per agent call.
    if (this.listeners.size === 0) return;
    const checked = eventSchemas[event].safeParse(payload);
    if (!checked.success) return; // an event that breaks the contract is dropped, never sent half-valid
    // A server that echoes a credential (in a progress message, say) must not reach the GUI with it.
    const data = this.redact(checked.data);
    for (const listener of this.listeners) {
      try {
        listener(event, data);
      } catch {
        // a closed window must not break the core
      }
    }
  };

  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
