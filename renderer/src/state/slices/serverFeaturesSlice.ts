/**
 * What servers offer beside tools, as the Resources and Prompts tabs show it: each server's
 * resource and prompt lists (loaded when a tab opens, reloaded when main says they changed),
 * the subscriptions, and when a subscribed resource last changed. Reads, prompt gets and
 * completions answer their caller directly (a view shows them; nothing else keeps them).
 */
import type {
  CompletionView,
  EventOf,
  PromptListView,
  PromptResultView,
  RequestOf,
  ResourceListView,
  ResourceReadView,
} from '../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator } from '../types.js';

export interface FeatureListEntry<T> {
  data: T | undefined;
  loading: boolean;
  /** Main's error, kept whole so the view can word it by code. */
  error: BridgeError | undefined;
}

export interface ServerFeaturesSlice {
  resourceLists: Record<string, FeatureListEntry<ResourceListView>>;
  promptLists: Record<string, FeatureListEntry<PromptListView>>;
  /** When each subscribed resource last changed on the server (epoch ms), by server, then URI. */
  resourceUpdates: Record<string, Record<string, number>>;

  /** `refresh`: main lists them anew instead of answering from this connection's last listing. */
  loadResources(serverId: string, refresh?: boolean): Promise<void>;
  loadPrompts(serverId: string, refresh?: boolean): Promise<void>;
  /** These throw main's BridgeError; the view shows it. */
  readResource(request: RequestOf<'resources.read'>): Promise<ResourceReadView>;
  getPrompt(request: RequestOf<'prompts.get'>): Promise<PromptResultView>;
  complete(request: RequestOf<'completion.complete'>): Promise<CompletionView>;
  /** Subscribes or unsubscribes; a failure becomes a notice. */
  setSubscribed(serverId: string, uri: string, subscribed: boolean): Promise<void>;
  applyResourcesChanged(serverId: string): void;
  applyPromptsChanged(serverId: string): void;
  applyResourceUpdated(event: EventOf<'resources.updated'>): void;
  /** Forgets what was kept for servers that are gone (one added again under the same id starts afresh). */
  pruneServerFeatures(serverIds: string[]): void;
  /** Reloads every list a tab showed (after the link to main came back). */
  reloadServerFeatures(): void;
  clearServerFeatures(): void;
}

function asBridgeError(error: unknown): BridgeError {
  return error instanceof BridgeError ? error : new BridgeError({ code: 'internal', message: messageOf(error) });
}

type Actions<K extends keyof ServerFeaturesSlice> = ClientSliceCreator<Pick<ServerFeaturesSlice, K>>;

/** The resource and prompt lists: loaded, reloaded when main says they changed. */
const listActions: Actions<
  'loadResources' | 'loadPrompts' | 'applyResourcesChanged' | 'applyPromptsChanged' | 'reloadServerFeatures'
> = (client) => (set, get) => {
  type Lists = 'resourceLists' | 'promptLists';

  /** Loads one list; applied only if no newer load replaced this one meanwhile (and the server is still shown). */
  async function load<K extends Lists>(
    key: K,
    serverId: string,
    fetch: () => Promise<NonNullable<ServerFeaturesSlice[K][string]['data']>>,
  ): Promise<void> {
    const previous = get()[key][serverId];
    const loading = { data: previous?.data, loading: true, error: undefined };
    set(
      { [key]: { ...get()[key], [serverId]: loading } } as Pick<ServerFeaturesSlice, K>,
      false,
      `features/${key}Load`,
    );
    const current = (): boolean => get()[key][serverId] === loading;
    try {
      const data = await fetch();
      if (current())
        set(
          { [key]: { ...get()[key], [serverId]: { data, loading: false, error: undefined } } } as Pick<
            ServerFeaturesSlice,
            K
          >,
          false,
          `features/${key}Loaded`,
        );
    } catch (error) {
      if (current())
        set(
          {
            [key]: { ...get()[key], [serverId]: { data: previous?.data, loading: false, error: asBridgeError(error) } },
          } as Pick<ServerFeaturesSlice, K>,
          false,
          `features/${key}Error`,
        );
    }
  }

  return {
    loadResources(serverId, refresh = false) {
      return load('resourceLists', serverId, () => client.call('resources.list', { serverId, refresh }));
    },

    loadPrompts(serverId, refresh = false) {
      return load('promptLists', serverId, () => client.call('prompts.list', { serverId, refresh }));
    },

    applyResourcesChanged(serverId) {
      if (get().resourceLists[serverId]) void get().loadResources(serverId);
    },

    applyPromptsChanged(serverId) {
      if (get().promptLists[serverId]) void get().loadPrompts(serverId);
    },

    reloadServerFeatures() {
      for (const id of Object.keys(get().resourceLists)) void get().loadResources(id);
      for (const id of Object.keys(get().promptLists)) void get().loadPrompts(id);
    },
  };
};

/** Reads, prompt gets, completions and subscriptions; what is kept per server. */
const requestActions: Actions<
  | 'readResource'
  | 'getPrompt'
  | 'complete'
  | 'setSubscribed'
  | 'applyResourceUpdated'
  | 'pruneServerFeatures'
  | 'clearServerFeatures'
> = (client) => (set, get) => ({
  readResource(request) {
    return client.call('resources.read', request);
  },

  getPrompt(request) {
    return client.call('prompts.get', request);
  },

  complete(request) {
    return client.call('completion.complete', request);
  },

  async setSubscribed(serverId, uri, subscribed) {
    try {
      const answer = await client.call(subscribed ? 'resources.subscribe' : 'resources.unsubscribe', {
        serverId,
        uri,
      });
      const entry = get().resourceLists[serverId];
      if (entry?.data)
        set(
          {
            resourceLists: {
              ...get().resourceLists,
              [serverId]: { ...entry, data: { ...entry.data, subscribed: answer.subscribed } },
            },
          },
          false,
          'features/subscribed',
        );
    } catch (error) {
      get().notify(
        'error',
        `${subscribed ? 'Subscribing to' : 'Unsubscribing from'} ${uri} failed: ${messageOf(error)}`,
      );
    }
  },

  applyResourceUpdated({ serverId, uri, at }) {
    const updates = get().resourceUpdates;
    set(
      { resourceUpdates: { ...updates, [serverId]: { ...updates[serverId], [uri]: at } } },
      false,
      'features/resourceUpdated',
    );
  },

  pruneServerFeatures(serverIds) {
    const keep = new Set(serverIds);
    const { resourceLists, promptLists, resourceUpdates } = get();
    const pruned = <T>(record: Record<string, T>): Record<string, T> =>
      Object.fromEntries(Object.entries(record).filter(([id]) => keep.has(id)));
    if (
      [resourceLists, promptLists, resourceUpdates].every((record) => Object.keys(record).every((id) => keep.has(id)))
    )
      return;
    set(
      {
        resourceLists: pruned(resourceLists),
        promptLists: pruned(promptLists),
        resourceUpdates: pruned(resourceUpdates),
      },
      false,
      'features/prune',
    );
  },

  clearServerFeatures() {
    set({ resourceLists: {}, promptLists: {}, resourceUpdates: {} }, false, 'features/clear');
  },
});

export const createServerFeaturesSlice: ClientSliceCreator<ServerFeaturesSlice> =
  (client) =>
  (...args) => ({
    resourceLists: {},
    promptLists: {},
    resourceUpdates: {},
    ...listActions(client)(...args),
    ...requestActions(client)(...args),
  });
