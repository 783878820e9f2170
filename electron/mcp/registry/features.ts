/**
 * What each server offers beside tools — resources, resource templates, prompts, completion —
 * kept per connection:
 *
 * - the lists are fetched on first use (following cursors, bounded: features/paging.ts) and kept
 *   until the server says they changed (`notifications/resources/list_changed`,
 *   `notifications/prompts/list_changed` — unsolicited on a legacy connection, on the
 *   `subscriptions/listen` stream the SDK opens on a modern one): then that list is fetched again, one listing at a time
 *   per list (a change during a listing makes it list once more), the new list replacing the old
 *   one whole. A new connection starts with no lists;
 * - the app's resource subscriptions belong to the server, not the connection: they are renewed
 *   on every new connection (`resources/subscribe` on a legacy connection, a
 *   `subscriptions/listen` stream per resource on a modern one), and
 *   `notifications/resources/updated` for them is passed on
 *   (coalesced per resource within one turn, so a flooding server costs one event per turn);
 * - reads, prompt gets and completions go to the live connection, refused by code when the
 *   server did not declare the capability.
 * - the resource, template and prompt lists are handed out with known secrets redacted
 *   (descriptorRedaction.ts, with the secrets known at that moment); reads and gets are the
 *   caller's to redact.
 *
 * Reading a resource or getting a prompt is read-only, but it reaches the server: the caller (the
 * app, later the gateway) decides whether it may happen and records it; this part only runs it.
 * Changes go out to this part's own listeners (see FeatureEvent).
 */
import type {
  CompleteResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  ServerCapabilities,
} from '@modelcontextprotocol/client';
import { promptIds, resourceIds, templateIds } from '../descriptorRedaction.js';
import { MCPConfigError, MCPServerUnavailableError } from '../errors.js';
import type { OfferedFeature } from '../features/errors.js';
import { MCPFeatureNotOfferedError } from '../features/errors.js';
import type { Listed } from '../features/paging.js';
import type { CompletionRequest } from '../features/prompts.js';
import { complete, getPrompt, listPrompts } from '../features/prompts.js';
import {
  listResourceTemplates,
  listResources,
  readResource,
  subscribeResource,
  unsubscribeResource,
} from '../features/resources.js';
import type { FeatureClient } from '../features/types.js';
import { featureClientOf } from '../features/types.js';
import type { RequestOptions } from '../types.js';
import type { RegistryState } from './state.js';
import { failureOfServer } from './state.js';
import { redactedAsks } from './calls.js';
import type { Connection, ServerEntry } from './types.js';

export interface ResourceLists {
  resources: Listed<Resource>;
  templates: Listed<ResourceTemplateType>;
}

export interface ResourceCatalog extends ResourceLists {
  /** The server takes subscriptions. */
  canSubscribe: boolean;
  /** The URIs the app is subscribed to on this server. */
  subscribed: string[];
}

/**
 * `resources` / `prompts`: that server's list changed (it was listed again, or its connection
 * was replaced): whoever shows it reads it again. `resource_updated`: a subscribed resource changed.
 */
export type FeatureEvent =
  | { type: 'resources'; serverId: string }
  | { type: 'prompts'; serverId: string }
  | { type: 'resource_updated'; serverId: string; uri: string; at: number };

type ListKind = 'resources' | 'prompts';

/**
 * One list of one connection: the last value, the listing in flight, whether it must list once
 * more (a change arrived during it), and whether the listeners hear of its outcome (it was a change).
 */
interface ListSlot<T> {
  value?: T;
  running?: Promise<T>;
  again: boolean;
  announce: boolean;
}

interface ServerFeatureState {
  /** The connection the lists and notification handlers belong to. */
  connection?: Connection;
  resources: ListSlot<ResourceLists>;
  prompts: ListSlot<Listed<Prompt>>;
  /** What the app subscribed to; renewed on each new connection. */
  subscriptions: Set<string>;
}

/** A live connection to use, with what the server declared. */
interface Usable {
  entry: ServerEntry;
  connection: Connection;
  client: FeatureClient;
  state: ServerFeatureState;
  capabilities: ServerCapabilities;
}

export class ServerFeatures {
  private readonly servers = new Map<string, ServerFeatureState>();
  private readonly listeners = new Set<(event: FeatureEvent) => void>();
  /** Resource updates waiting for the end of this turn, by server and URI. */
  private pendingUpdates = new Map<string, { serverId: string; uri: string; at: number }>();

  constructor(private readonly registry: RegistryState) {
    registry.subscribe((event) => {
      if (event.type === 'status' && event.status.state === 'ready') this.attach(event.serverId);
      else if (event.type === 'servers') this.forgetRemovedServers();
    });
  }

  subscribe(listener: (event: FeatureEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ── resources ────────────────────────────────────────────────────────────────────────────

  /** The server's resources and templates: kept from this connection's last listing, or listed now (`refresh`: always). */
  async resources(serverId: string, options: { refresh?: boolean } = {}): Promise<ResourceCatalog> {
    const usable = await this.usable(serverId, 'resources');
    const lists = this.redactedResources(await this.current(usable, 'resources', options.refresh === true));
    return {
      ...lists,
      canSubscribe: usable.capabilities.resources?.subscribe === true,
      subscribed: [...usable.state.subscriptions],
    };
  }

  async read(serverId: string, uri: string, options: RequestOptions = {}): Promise<ReadResourceResult> {
    const { client } = await this.usable(serverId, 'resources');
    return client.featureRequest('resources/read', (sdk, o) => readResource(sdk, uri, o), options);
  }

  /** Subscribes to a resource's updates; returns every URI subscribed on that server. */
  async subscribeResource(serverId: string, uri: string, options: RequestOptions = {}): Promise<string[]> {
    const usable = await this.usable(serverId, 'resources');
    if (usable.capabilities.resources?.subscribe !== true)
      throw new MCPFeatureNotOfferedError(serverId, 'resource subscriptions');
    await usable.client.featureRequest('resources/subscribe', (sdk, o) => subscribeResource(sdk, uri, o), options);
    usable.state.subscriptions.add(uri);
    usable.entry.log.note(`subscribed to updates of ${uri}`);
    return [...usable.state.subscriptions];
  }

  /**
   * Ends a subscription. It is forgotten at once (not renewed, its updates no longer passed on);
   * the server is told when it is connected, and a failure to tell it is the error.
   */
  async unsubscribeResource(serverId: string, uri: string, options: RequestOptions = {}): Promise<string[]> {
    const entry = this.registry.entries.get(serverId);
    if (!entry) throw new MCPConfigError(serverId, 'no server with this id exists');
    const state = this.stateOf(serverId);
    const had = state.subscriptions.delete(uri);
    const connection = entry.connection;
    if (had && connection && !connection.failure && connection.client.state === 'ready') {
      const client = featureClientOf(connection.client);
      await client?.featureRequest('resources/unsubscribe', (sdk, o) => unsubscribeResource(sdk, uri, o), options);
      entry.log.note(`unsubscribed from ${uri}`);
    }
    return [...state.subscriptions];
  }

  // ── prompts and completion ───────────────────────────────────────────────────────────────

  async prompts(serverId: string, options: { refresh?: boolean } = {}): Promise<Listed<Prompt>> {
    const usable = await this.usable(serverId, 'prompts');
    const listed = await this.current(usable, 'prompts', options.refresh === true);
    const items = this.registry.redaction.each(listed.items, (p) => this.registry.redaction.prompt(p), promptIds);
    return items === listed.items ? listed : { ...listed, items };
  }

  /** Lists are kept as the server sent them and redacted on the way out, with the secrets known now. */
  private redactedResources(lists: ResourceLists): ResourceLists {
    const redaction = this.registry.redaction;
    const resources = redaction.each(lists.resources.items, (r) => redaction.resource(r), resourceIds);
    const templates = redaction.each(lists.templates.items, (t) => redaction.template(t), templateIds);
    return {
      resources: resources === lists.resources.items ? lists.resources : { ...lists.resources, items: resources },
      templates: templates === lists.templates.items ? lists.templates : { ...lists.templates, items: templates },
    };
  }

  async getPrompt(
    serverId: string,
    name: string,
    args: Record<string, string>,
    options: RequestOptions = {},
  ): Promise<GetPromptResult> {
    const { client } = await this.usable(serverId, 'prompts');
    const { serverRequests } = options;
    // A caller with its own answerers (a 2026-07-28 agent): a modern server's questions go to it (inputRounds.ts).
    if (serverRequests?.relay && client.featureRounds)
      return (await client.featureRounds(
        `prompts/get "${name}"`,
        { name, arguments: args },
        (sdk, params, o) => sdk.getPrompt(params as { name: string }, { ...o, allowInputRequired: true }),
        { ...options, serverRequests: redactedAsks(serverRequests, this.registry.redaction) },
      )) as GetPromptResult;
    return client.featureRequest(`prompts/get "${name}"`, (sdk, o) => getPrompt(sdk, name, args, o), options);
  }

  async complete(
    serverId: string,
    request: CompletionRequest,
    options: RequestOptions = {},
  ): Promise<CompleteResult['completion']> {
    const { client } = await this.usable(serverId, 'completions');
    return client.featureRequest('completion/complete', (sdk, o) => complete(sdk, request, o), options);
  }

  // ── connections ──────────────────────────────────────────────────────────────────────────

  /**
   * The server's live connection, once ready, and what it declared. Refused with the reason when
   * the server cannot take the request (removed, not connected, lost) or did not declare `feature`.
   */
  /** The connection discovery is about to open for an enabled, still `idle` server (bounded by its timeout); else none. */
  private opened(entry: ServerEntry): Promise<Connection | undefined> {
    if (entry.status.state !== 'idle' || !entry.config.enabled) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        unsubscribe();
        resolve(entry.connection);
      };
      const timer = setTimeout(done, entry.config.timeoutMs);
      const unsubscribe = this.registry.subscribe((event) => {
        if (event.type === 'status' && event.serverId === entry.config.id && event.status.state !== 'idle') done();
      });
    });
  }

  private async usable(serverId: string, feature: OfferedFeature): Promise<Usable> {
    this.registry.assertOpen();
    const entry = this.registry.entries.get(serverId);
    if (!entry) throw new MCPConfigError(serverId, 'no server with this id exists');
    // At start an enabled server is `idle` a moment before discovery opens its connection: wait for it then.
    const connection = entry.connection ?? (await this.opened(entry));
    if (!connection) throw new MCPServerUnavailableError(serverId, 'it is not connected; connect it first');
    // A lost server says why (it exited, it was killed); checked again once initialize settled.
    const assertAlive = (): void => {
      if (connection.failure) throw new MCPServerUnavailableError(serverId, connection.failure.message);
    };
    assertAlive();
    await connection.ready;
    assertAlive();
    if (entry.connection !== connection)
      throw new MCPServerUnavailableError(serverId, 'its connection was replaced meanwhile; try again');
    const capabilities = connection.client.negotiated?.capabilities ?? {};
    const client = featureClientOf(connection.client);
    const declared =
      feature === 'completions'
        ? capabilities.completions
        : feature === 'prompts'
          ? capabilities.prompts
          : capabilities.resources;
    if (!client || !declared) throw new MCPFeatureNotOfferedError(serverId, feature);
    // A reconnection marks the server ready only once its tools are listed: attach now if need be.
    this.attach(serverId);
    return { entry, connection, client, state: this.stateOf(serverId), capabilities };
  }

  /**
   * Takes a newly ready connection: its lists start empty, its notifications are handled, and
   * the app's subscriptions are renewed on it. Does nothing for a connection already taken.
   */
  private attach(serverId: string): void {
    const entry = this.registry.entries.get(serverId);
    const connection = entry?.connection;
    if (!entry || !connection || connection.failure) return;
    const state = this.stateOf(serverId);
    if (state.connection === connection) return;
    state.connection = connection;
    state.resources = { again: false, announce: false };
    state.prompts = { again: false, announce: false };
    const client = featureClientOf(connection.client);
    if (client) {
      const current = (): boolean =>
        entry.connection === connection && state.connection === connection && this.servers.get(serverId) === state;
      try {
        // list_changed arrives through the client's one list-change hook (it also fires when a new
        // session replaced a lost one); setting the SDK's handlers here would replace the client's.
        client.onListChanged?.('resources', () => {
          if (current()) this.listChanged(serverId, state, 'resources');
        });
        client.onListChanged?.('prompts', () => {
          if (current()) this.listChanged(serverId, state, 'prompts');
        });
        client.attachFeatureHandlers((sdk) => {
          sdk.setNotificationHandler('notifications/resources/updated', (notification) => {
            if (current()) this.resourceUpdated(serverId, state, notification.params.uri);
          });
        });
      } catch {
        return; // closed meanwhile: the next connection attaches
      }
      if (state.subscriptions.size > 0) {
        void this.renewSubscriptions(entry, connection, client, state).finally(() =>
          this.emit({ type: 'resources', serverId }),
        );
        this.emit({ type: 'prompts', serverId });
        return;
      }
    }
    this.emit({ type: 'resources', serverId });
    this.emit({ type: 'prompts', serverId });
  }

  /** Subscribes again on a new connection; a subscription the server refuses now is dropped (and noted in its log). */
  private async renewSubscriptions(
    entry: ServerEntry,
    connection: Connection,
    client: FeatureClient,
    state: ServerFeatureState,
  ): Promise<void> {
    const canSubscribe = connection.client.negotiated?.capabilities.resources?.subscribe === true;
    for (const uri of [...state.subscriptions]) {
      if (state.connection !== connection) return;
      if (!canSubscribe) {
        state.subscriptions.delete(uri);
        entry.log.note(`the subscription to ${uri} ended: the server no longer takes subscriptions`);
        continue;
      }
      try {
        await client.featureRequest('resources/subscribe', (sdk, o) => subscribeResource(sdk, uri, o));
      } catch (error) {
        if (state.connection !== connection) return;
        state.subscriptions.delete(uri);
        entry.log.note(`the subscription to ${uri} could not be renewed: ${failureOfServer(error).reason}`);
      }
    }
  }

  private forgetRemovedServers(): void {
    for (const id of [...this.servers.keys()]) if (!this.registry.entries.has(id)) this.servers.delete(id);
  }

  private stateOf(serverId: string): ServerFeatureState {
    let state = this.servers.get(serverId);
    if (!state) {
      state = {
        resources: { again: false, announce: false },
        prompts: { again: false, announce: false },
        subscriptions: new Set(),
      };
      this.servers.set(serverId, state);
    }
    return state;
  }

  // ── lists ────────────────────────────────────────────────────────────────────────────────

  private current(usable: Usable, kind: 'resources', refresh: boolean): Promise<ResourceLists>;
  private current(usable: Usable, kind: 'prompts', refresh: boolean): Promise<Listed<Prompt>>;
  private current(usable: Usable, kind: ListKind, refresh: boolean): Promise<ResourceLists | Listed<Prompt>> {
    const slot: ListSlot<ResourceLists | Listed<Prompt>> = usable.state[kind];
    if (slot.running) {
      if (refresh) slot.again = true;
      return slot.running;
    }
    if (slot.value && !refresh) return Promise.resolve(slot.value);
    return this.startListing(usable.state, usable.connection, usable.client, kind);
  }

  /** The server said a list changed: list it again if anyone listed it on this connection; tell the listeners. */
  private listChanged(serverId: string, state: ServerFeatureState, kind: ListKind): void {
    const slot = state[kind];
    if (slot.running) {
      slot.again = true;
      slot.announce = true;
      return; // the listing in flight lists once more, then tells the listeners
    }
    const connection = state.connection;
    const client = connection && featureClientOf(connection.client);
    if (!slot.value || !connection || !client) return this.emit({ type: kind, serverId });
    slot.announce = true;
    this.startListing(state, connection, client, kind).catch((error: unknown) => {
      // The old list stays until a listing succeeds; a lost connection shows in the status.
      this.registry.entries.get(serverId)?.log.note(`listing ${kind} again failed: ${failureOfServer(error).reason}`);
    });
  }

  /**
   * Lists until no change arrived during the listing, then replaces the kept list whole (if the
   * connection is still the one it listed on) and, when it was a change, tells the listeners.
   */
  private startListing(
    state: ServerFeatureState,
    connection: Connection,
    client: FeatureClient,
    kind: ListKind,
  ): Promise<ResourceLists | Listed<Prompt>> {
    const slot: ListSlot<ResourceLists | Listed<Prompt>> = state[kind];
    const serverId = connection.client.serverId;
    const fetch = (): Promise<ResourceLists | Listed<Prompt>> =>
      kind === 'resources'
        ? client.featureRequest('resources/list', async (sdk, o) => ({
            resources: await listResources(sdk, serverId, o),
            templates: await listResourceTemplates(sdk, serverId, o),
          }))
        : client.featureRequest('prompts/list', (sdk, o) => listPrompts(sdk, serverId, o));
    const run = async (): Promise<ResourceLists | Listed<Prompt>> => {
      let value: ResourceLists | Listed<Prompt>;
      do {
        slot.again = false;
        value = await fetch();
      } while (slot.again && state.connection === connection);
      if (state.connection === connection) {
        slot.value = value;
        if (slot.announce) this.emit({ type: kind, serverId });
        slot.announce = false;
      }
      return value;
    };
    const running = run().finally(() => {
      if (slot.running === running) slot.running = undefined;
    });
    slot.running = running;
    return running;
  }

  // ── events ───────────────────────────────────────────────────────────────────────────────

  /** Passed on when the app subscribed to the URI or to a resource it belongs to (`uri` under a subscribed `…/`). */
  private resourceUpdated(serverId: string, state: ServerFeatureState, uri: string): void {
    const subscribed = [...state.subscriptions].some((s) => s === uri || (s.endsWith('/') && uri.startsWith(s)));
    if (!subscribed) return;
    const first = this.pendingUpdates.size === 0;
    this.pendingUpdates.set(`${serverId}\0${uri}`, { serverId, uri, at: Date.now() });
    if (!first) return;
    setImmediate(() => {
      const updates = [...this.pendingUpdates.values()];
      this.pendingUpdates = new Map();
      for (const update of updates) this.emit({ type: 'resource_updated', ...update });
    });
  }

  private emit(event: FeatureEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener (a closed window) must not break the registry.
      }
    }
  }
}
