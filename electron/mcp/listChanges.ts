/**
 * A connection's list changes: the server's tools (resources, prompts) changed. The SDK delivers
 * them in both eras — `notifications/<kind>/list_changed` on a legacy connection, the stream it
 * opens with `subscriptions/listen` on a modern one — through `ClientOptions.listChanged`, which
 * this builds without the SDK's own refresh: listeners re-list, with our pagination and bounds,
 * in order with everything else that lists. Changes of one kind arriving within the debounce
 * window cause one call.
 */
import type { ListChangedHandlers } from '@modelcontextprotocol/client';
import type { ListKind } from './types.js';

/** list_changed notifications of one kind arriving this close together cause one re-list. */
export const LIST_CHANGED_DEBOUNCE_MS = 50;

export class ListChanges {
  private readonly listeners = new Map<ListKind, Set<() => void>>();

  /** @param live Whether a change should reach listeners now (the connection is ready). */
  constructor(private readonly live: () => boolean) {}

  /** Called (debounced) when the server says one of its lists changed, and after a new session replaced a lost one. */
  on(kind: ListKind, listener: () => void): () => void {
    let listeners = this.listeners.get(kind);
    if (!listeners) this.listeners.set(kind, (listeners = new Set()));
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  emit(kind: ListKind): void {
    if (!this.live()) return;
    for (const listener of this.listeners.get(kind) ?? []) {
      try {
        listener();
      } catch {
        // A failing listener must not break the client.
      }
    }
  }

  /** Every kind someone listens to (a new session may offer other lists: all of them are re-listed). */
  emitAll(): void {
    for (const kind of this.listeners.keys()) this.emit(kind);
  }

  /** The SDK's handlers (installed only for lists the server declared `listChanged` for). */
  sdkHandlers(): ListChangedHandlers {
    const handler = (kind: ListKind) => ({
      autoRefresh: false,
      debounceMs: LIST_CHANGED_DEBOUNCE_MS,
      onChanged: () => this.emit(kind),
    });
    return { tools: handler('tools'), resources: handler('resources'), prompts: handler('prompts') };
  }
}
