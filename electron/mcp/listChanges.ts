/**
 * A connection's list changes: the server's tools (resources, prompts) changed. They arrive as
 * `notifications/<kind>/list_changed` in both eras — unsolicited on a legacy connection, on a
 * `subscriptions/listen` stream on a modern one — and the SDK hands them to the same notification
 * handlers (installed here, `install`). Listeners re-list, with our pagination and bounds, in
 * order with everything else that lists. Changes of one kind arriving within the debounce window
 * cause one call.
 *
 * The modern stream is opened here too (`openListStream`), beside the connection rather than
 * inside its handshake (the SDK's `ClientOptions.listChanged` opens it inside `connect()` and
 * waits for the server's acknowledgement there): a server that answers `subscriptions/listen`
 * badly — as `application/json` and never ending the response — must not make a ready server
 * look as if it never answered `initialize`. Its failure is said in the log instead.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { Client, ServerCapabilities } from '@modelcontextprotocol/client';
import type { ListKind } from './types.js';

const KINDS: readonly ListKind[] = ['tools', 'resources', 'prompts'];

/** list_changed notifications of one kind arriving this close together cause one re-list. */
const LIST_CHANGED_DEBOUNCE_MS = 50;

export class ListChanges {
  private readonly listeners = new Map<ListKind, Set<() => void>>();
  private readonly pending = new Map<ListKind, ReturnType<typeof setTimeout>>();

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

  /** Installs the list_changed handlers on a connection's SDK client; `current`: it still speaks for the connection. */
  install(sdk: Client, current: () => boolean): void {
    for (const kind of KINDS) {
      sdk.setNotificationHandler(`notifications/${kind}/list_changed`, () => {
        if (current()) this.notified(kind);
      });
    }
  }

  /** A change of `kind` was announced: listeners hear it once the announcements of the debounce window are in. */
  private notified(kind: ListKind): void {
    if (this.pending.has(kind)) return;
    this.pending.set(
      kind,
      setTimeout(() => {
        this.pending.delete(kind);
        this.emit(kind);
      }, LIST_CHANGED_DEBOUNCE_MS),
    );
  }
}

/** The `subscriptions/listen` filter for the lists the server says it announces changes of (empty: none). */
function listStreamFilter(capabilities: ServerCapabilities): Record<string, true> {
  return {
    ...(capabilities.tools?.listChanged ? { toolsListChanged: true as const } : {}),
    ...(capabilities.resources?.listChanged ? { resourcesListChanged: true as const } : {}),
    ...(capabilities.prompts?.listChanged ? { promptsListChanged: true as const } : {}),
  };
}

/**
 * Opens the modern connection's list-changes stream, in the background: the server must
 * acknowledge it within `timeoutMs` (then the SDK gives the request up and tells the server);
 * whatever goes wrong, or the stream ending later, is a line in the server's log — the
 * connection itself stays as it is. `current`: the connection is still this one (a closed or
 * replaced one says nothing).
 */
export function openListStream(
  sdk: Client,
  capabilities: ServerCapabilities,
  options: {
    timeoutMs: number;
    note: (line: string) => void;
    current: () => boolean;
    redact: (text: string) => string;
  },
): void {
  const filter = listStreamFilter(capabilities);
  if (Object.keys(filter).length === 0) return;
  const what = Object.keys(filter)
    .map((key) => key.replace('ListChanged', ''))
    .join(', ');
  sdk.listen(filter, { timeout: options.timeoutMs }).then(
    (subscription) => {
      void subscription.closed.then((cause) => {
        if (options.current() && cause !== 'local')
          options.note(
            `the server ended its subscriptions/listen stream: changes to its ${what} are not seen live until it reconnects`,
          );
      });
    },
    (error: unknown) => {
      if (!options.current()) return;
      const message = options.redact(error instanceof Error ? error.message : String(error));
      options.note(
        error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout
          ? `the server did not acknowledge subscriptions/listen within ${options.timeoutMs} ms (the stream was given up): changes to its ${what} are not seen live until it reconnects`
          : `subscriptions/listen failed (${message}): changes to its ${what} are not seen live until it reconnects`,
      );
    },
  );
}
