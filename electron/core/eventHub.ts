/**
 * The core's contract events on their way to the hosts' listeners (a window, a browser page):
 * each payload is checked against the contract's event schema and redacted of every known secret
 * before any listener sees it. With nobody listening, nothing is validated or sent. A listener may
 * name the few events it wants (the browser host's watch for approvals with no page open): it
 * receives only those, and does not make every other event, or a view, worth building.
 */
import type { EventName, EventOf } from '../../shared/contract.js';
import { events as eventSchemas } from '../../shared/contract.js';

export type EventListener = (event: EventName, payload: unknown) => void;

export class EventHub {
  private readonly listeners = new Map<EventListener, ReadonlySet<EventName> | undefined>();
  /** Listeners that take every event: a window or a page. */
  private watchingAll = 0;

  /** `redact` removes known secret values from a payload (the tracer's set of secrets). */
  constructor(private readonly redact: <T>(value: T) => T) {}

  /** Someone will see an event: a view worth building. */
  get listening(): boolean {
    return this.watchingAll > 0;
  }

  readonly emit = <E extends EventName>(event: E, payload: EventOf<E>): void => {
    // No window or page is listening (agents calling through the gateway with the GUI closed):
    // nothing to validate, redact or send — a third of the app's zod time per agent call.
    if (this.watchingAll === 0 && !this.someoneWants(event)) return;
    const checked = eventSchemas[event].safeParse(payload);
    if (!checked.success) return; // an event that breaks the contract is dropped, never sent half-valid
    // A server that echoes a credential (in a progress message, say) must not reach the GUI with it.
    const data = this.redact(checked.data);
    for (const [listener, only] of this.listeners) {
      if (only && !only.has(event)) continue;
      try {
        listener(event, data);
      } catch {
        // a closed window must not break the core
      }
    }
  };

  /** `only`: the events this listener wants; without it, every event. */
  on(listener: EventListener, only?: readonly EventName[]): () => void {
    if (this.listeners.has(listener)) return () => undefined;
    this.listeners.set(listener, only ? new Set(only) : undefined);
    if (!only) this.watchingAll++;
    return () => {
      if (!this.listeners.has(listener)) return;
      this.listeners.delete(listener);
      if (!only) this.watchingAll--;
    };
  }

  private someoneWants(event: EventName): boolean {
    for (const only of this.listeners.values()) if (only?.has(event)) return true;
    return false;
  }
}
