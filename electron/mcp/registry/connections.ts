/**
 * Connection lifecycle: opening a connection (initialize on the next turn), closing it, and
 * reconnecting by itself with backoff when a ready connection is lost (`reconnecting` status:
 * attempt, next retry) until it is back, a person disconnects, disables or removes the server, or
 * a failure needs a person (auth, configuration). `whenReady` lets a retry wait for that.
 */
import type { ClientFactory } from '../types.js';
import { MCPConfigError, MCPError, MCPRequestCancelled, MCPServerUnavailableError } from '../errors.js';
import { connectionFingerprint } from '../fingerprint.js';
import type { ReconnectPolicy } from '../reconnectPolicy.js';
import { keepsReconnecting, reconnectDelay } from '../reconnectPolicy.js';
import type { CacheAccess } from './cacheAccess.js';
import type { RegistryState } from './state.js';
import { failureOfServer } from './state.js';
import type { Connection, ReconnectState, ServerEntry, WaitOptions } from './types.js';

export class ConnectionLifecycle {
  constructor(
    private readonly state: RegistryState,
    private readonly clientFactory: ClientFactory,
    private readonly policy: ReconnectPolicy,
    private readonly cache: CacheAccess,
  ) {}

  /**
   * Opens a connection and starts initialize. `reconnect` mode leaves the status to the caller
   * (the reconnection decides what a failure means and marks the server ready once its tools are in).
   */
  open(
    entry: ServerEntry,
    fingerprint: string,
    signal?: AbortSignal,
    mode: 'connect' | 'reconnect' = 'connect',
  ): Connection {
    const { state } = this;
    const client = this.clientFactory(entry.config);
    const generation = entry.generation;
    const connection: Connection = { client, fingerprint, ready: Promise.resolve() };
    entry.connection = connection;
    state.setStatus(entry, { state: 'connecting' });
    const current = (): boolean => entry.connection === connection && entry.generation === generation && !state.closed;

    client.onDisconnect(({ error }) => {
      const mapped = error instanceof MCPError ? error : new MCPServerUnavailableError(entry.config.id, error.message);
      connection.failure = mapped;
      // Still this server's live connection (an edit of its name or priority keeps it): reconnect.
      if (entry.connection === connection && state.entries.get(entry.config.id) === entry && !state.closed)
        this.connectionLost(entry, connection, mapped);
    });
    // Start on the next turn of the event loop: spawning many servers takes a while, and a warm
    // start must hand out its cached tool list before that work begins.
    connection.ready = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => client.initialize(signal ? { signal } : {}))
      .then(
        () => {
          if (mode === 'reconnect') return;
          connection.readyAt = Date.now();
          if (current()) state.setStatus(entry, { state: 'ready' });
        },
        (error: unknown) => {
          connection.failure =
            error instanceof MCPError
              ? error
              : new MCPServerUnavailableError(entry.config.id, failureOfServer(error).reason);
          if (mode === 'reconnect') return;
          if (current()) {
            state.setStatus(entry, { state: 'error', ...failureOfServer(error) });
            // A warm start listed this server's tools from the cache; they cannot be called now.
            if (state.toolMap.has(entry.config.id)) state.setServerTools(entry.config.id, undefined);
          }
        },
      );
    return connection;
  }

  async drop(entry: ServerEntry): Promise<void> {
    const connection = entry.connection;
    entry.connection = undefined;
    await connection?.client.close();
  }

  /** Ends automatic reconnection (a person connected, disconnected, edited, disabled or removed the server). */
  stopReconnecting(entry: ServerEntry): void {
    clearTimeout(entry.reconnect?.timer);
    entry.reconnect = undefined;
  }

  /**
   * A ready connection was lost. Its tools stay listed (a call meanwhile is refused as "not
   * connected", which the harness retries once the server is back), and reconnection starts.
   */
  private connectionLost(entry: ServerEntry, connection: Connection, cause: MCPError): void {
    const stable = connection.readyAt !== undefined && Date.now() - connection.readyAt >= this.policy.stableAfterMs;
    if (stable || !entry.reconnect) {
      this.stopReconnecting(entry);
      entry.reconnect = { attempt: 0 };
    }
    entry.log.note(`connection lost (${cause.code}); reconnecting automatically`);
    this.scheduleReconnect(entry, entry.reconnect, cause);
  }

  private scheduleReconnect(entry: ServerEntry, reconnect: ReconnectState, cause: unknown): void {
    clearTimeout(reconnect.timer);
    reconnect.attempt++;
    const delayMs = reconnectDelay(reconnect.attempt, this.policy);
    const attempt = reconnect.attempt;
    reconnect.timer = setTimeout(() => {
      reconnect.timer = undefined;
      void this.reconnectOnce(entry, reconnect, attempt);
    }, delayMs);
    this.state.setStatus(entry, {
      state: 'reconnecting',
      attempt,
      nextRetryAt: Date.now() + delayMs,
      ...failureOfServer(cause),
    });
  }

  private async reconnectOnce(entry: ServerEntry, reconnect: ReconnectState, attempt: number): Promise<void> {
    const { state } = this;
    const stale = (): boolean =>
      state.closed ||
      state.entries.get(entry.config.id) !== entry ||
      entry.reconnect !== reconnect ||
      !entry.config.enabled;
    if (stale()) return;
    entry.log.note(`reconnecting (attempt ${attempt})`);
    await this.drop(entry);
    if (stale() || entry.connection) return;
    const fingerprint = connectionFingerprint(entry.config);
    const connection = this.open(entry, fingerprint, undefined, 'reconnect');
    const mine = (): boolean => !stale() && entry.connection === connection;
    await connection.ready;
    if (!mine()) return;
    if (connection.failure) return this.reconnectFailed(entry, reconnect, connection.failure);
    try {
      const tools = await connection.client.listTools();
      if (!mine() || connection.failure) return; // lost again meanwhile: its own loss handler took over
      await this.cache.write(entry.config, fingerprint, tools, connection.client.toolListHints?.());
      if (!mine() || connection.failure) return;
      connection.readyAt = Date.now();
      state.setServerTools(entry.config.id, tools);
      entry.log.note(`reconnected after ${attempt} ${attempt === 1 ? 'attempt' : 'attempts'}`);
      state.setStatus(entry, { state: 'ready' });
    } catch (error) {
      if (!mine() || connection.failure) return;
      await this.drop(entry);
      if (!stale()) this.reconnectFailed(entry, reconnect, error);
    }
  }

  private reconnectFailed(entry: ServerEntry, reconnect: ReconnectState, error: unknown): void {
    const described = failureOfServer(error);
    if (keepsReconnecting(described.code)) return this.scheduleReconnect(entry, reconnect, error);
    // Another attempt cannot help (a refused token, a missing command): a person must act.
    this.stopReconnecting(entry);
    this.state.setServerTools(entry.config.id, undefined);
    this.state.setStatus(entry, { state: 'error', ...described });
  }

  /**
   * Resolves once the server is ready (at once when it is), e.g. after an automatic reconnect.
   * Rejects with MCPServerUnavailableError when it will not come back by itself (disabled,
   * disconnected, removed, failed for a reason a person must fix; `idle` unless `throughIdle`) or not within `timeoutMs`,
   * and with the signal's reason (or MCPRequestCancelled) when the signal aborts.
   */
  whenReady(id: string, options: WaitOptions): Promise<void> {
    const { state } = this;
    return new Promise<void>((resolve, reject) => {
      const entry = state.entries.get(id);
      if (!entry) return reject(new MCPConfigError(id, 'no server with this id exists'));
      const cancelled = (): Error => {
        const reason: unknown = options.signal?.reason;
        return reason instanceof Error ? reason : new MCPRequestCancelled(id, 'waiting for the server to reconnect');
      };
      if (options.signal?.aborted) return reject(cancelled());
      const settle = (finish: () => void): void => {
        unsubscribe();
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        finish();
      };
      const onAbort = (): void => settle(() => reject(cancelled()));
      const check = (): void => {
        if (state.closed || state.entries.get(id) !== entry)
          return settle(() => reject(new MCPServerUnavailableError(id, 'it was removed')));
        const status = entry.status;
        if (
          status.state === 'ready' &&
          entry.connection &&
          !entry.connection.failure &&
          (!options.withTools || state.toolMap.has(id))
        )
          return settle(resolve);
        if (status.state === 'error') return settle(() => reject(new MCPServerUnavailableError(id, status.reason)));
        if (
          status.state === 'disabled' ||
          status.state === 'closed' ||
          (status.state === 'idle' && !options.throughIdle)
        ) {
          settle(() =>
            reject(
              new MCPServerUnavailableError(id, status.state === 'disabled' ? 'it is disabled' : 'it is not connected'),
            ),
          );
        }
      };
      const unsubscribe = state.subscribe((event) => {
        if ((event.type === 'status' && event.serverId === id) || (options.withTools && event.type === 'tools'))
          check();
      });
      const timer = setTimeout(
        () =>
          settle(() =>
            reject(new MCPServerUnavailableError(id, `it did not come back within ${options.timeoutMs} ms`)),
          ),
        options.timeoutMs,
      );
      options.signal?.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }
}
