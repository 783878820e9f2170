/**
 * The Catalog (issue 30): what the registries answered for the search, the install form open
 * (its plan, the values typed, main's field errors), the updates offered and the one previewed,
 * and the registries setting. Every failure is kept as a sentence for the view; a registry that
 * fails is named in the answer itself, beside the entries of the others.
 */
import type {
  CatalogEntryView,
  InstallOption,
  InstallPlanView,
  RegistryStateView,
  ResponseOf,
} from '../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator, StateOf } from '../types.js';

interface InstallState {
  registry: string;
  name: string;
  option: InstallOption;
  plan: InstallPlanView | undefined;
  id: string;
  values: Record<string, string>;
  fieldErrors: Record<string, string[]>;
  failure: string | undefined;
  busy: boolean;
}

interface UpdateState {
  serverId: string;
  preview: ResponseOf<'catalog.previewUpdate'> | undefined;
  values: Record<string, string>;
  fieldErrors: Record<string, string[]>;
  failure: string | undefined;
  busy: boolean;
}

export interface CatalogSlice {
  /** The last search asked (the list shown answers it). */
  catalogSearchText: string;
  catalogEntries: CatalogEntryView[];
  catalogRegistries: RegistryStateView[];
  catalogLoading: boolean;
  catalogFailure: string | undefined;
  catalogInstall: InstallState | undefined;
  catalogUpdates: ResponseOf<'catalog.updates'>;
  catalogUpdate: UpdateState | undefined;
  catalogRegistryUrls: string[];
  searchCatalog(search: string, refresh?: boolean): Promise<void>;
  openCatalogInstall(registry: string, name: string, option: InstallOption): Promise<void>;
  setCatalogInstallValue(key: string, value: string): void;
  setCatalogInstallId(id: string): void;
  submitCatalogInstall(): Promise<void>;
  closeCatalogInstall(): void;
  loadCatalogUpdates(): Promise<void>;
  openCatalogUpdate(serverId: string): Promise<void>;
  setCatalogUpdateValue(key: string, value: string): void;
  applyCatalogUpdate(): Promise<void>;
  closeCatalogUpdate(): void;
  loadCatalogRegistries(): Promise<void>;
  saveCatalogRegistries(urls: string[]): Promise<string | undefined>;
}

const fieldErrorsOf = (error: unknown): Record<string, string[]> =>
  (error instanceof BridgeError ? error.details?.fieldErrors : undefined) ?? {};

const INITIAL: StateOf<CatalogSlice> = {
  catalogSearchText: '',
  catalogEntries: [],
  catalogRegistries: [],
  catalogLoading: false,
  catalogFailure: undefined,
  catalogInstall: undefined,
  catalogUpdates: [],
  catalogUpdate: undefined,
  catalogRegistryUrls: [],
};

type Actions<K extends keyof CatalogSlice> = ClientSliceCreator<Pick<CatalogSlice, K>>;

/** The search and the registries setting. */
const searchActions: Actions<'searchCatalog' | 'loadCatalogRegistries' | 'saveCatalogRegistries'> =
  (client) => (set, get) => ({
    async searchCatalog(search, refresh = false) {
      set({ catalogLoading: true, catalogFailure: undefined, catalogSearchText: search }, false, 'catalog/search');
      try {
        const result = await client.call('catalog.search', { search, refresh });
        // A later search answered first: this answer is for a search no longer shown.
        if (get().catalogSearchText !== search) return;
        set({ catalogEntries: result.entries, catalogRegistries: result.registries }, false, 'catalog/searched');
      } catch (error) {
        set({ catalogFailure: messageOf(error) }, false, 'catalog/searchFailed');
      } finally {
        set({ catalogLoading: false }, false, 'catalog/searchDone');
      }
    },

    async loadCatalogRegistries() {
      try {
        set(
          { catalogRegistryUrls: (await client.call('catalog.registries', {})).registries },
          false,
          'catalog/registries',
        );
      } catch {
        // Shown empty; the search names the registries it asked.
      }
    },

    async saveCatalogRegistries(urls) {
      try {
        const { registries } = await client.call('catalog.setRegistries', { registries: urls });
        set({ catalogRegistryUrls: registries }, false, 'catalog/setRegistries');
        return undefined;
      } catch (error) {
        return messageOf(error);
      }
    },
  });

/** The install form: its plan, the values typed, the install. */
const installActions: Actions<
  | 'openCatalogInstall'
  | 'setCatalogInstallValue'
  | 'setCatalogInstallId'
  | 'submitCatalogInstall'
  | 'closeCatalogInstall'
> = (client) => (set, get) => ({
  async openCatalogInstall(registry, name, option) {
    const base = { registry, name, option, values: {}, fieldErrors: {}, busy: true, id: '' };
    set({ catalogInstall: { ...base, plan: undefined, failure: undefined } }, false, 'catalog/openInstall');
    try {
      const plan = await client.call('catalog.plan', { registry, name, option });
      if (get().catalogInstall?.name !== name) return;
      const values = Object.fromEntries(
        plan.fields.filter((f) => f.default !== undefined).map((f) => [f.key, f.default!]),
      );
      set(
        { catalogInstall: { ...base, plan, values, id: plan.suggestedId, busy: false, failure: undefined } },
        false,
        'catalog/plan',
      );
    } catch (error) {
      set(
        { catalogInstall: { ...base, plan: undefined, busy: false, failure: messageOf(error) } },
        false,
        'catalog/planFailed',
      );
    }
  },

  setCatalogInstallValue(key, value) {
    const install = get().catalogInstall;
    if (install)
      set({ catalogInstall: { ...install, values: { ...install.values, [key]: value } } }, false, 'catalog/value');
  },

  setCatalogInstallId(id) {
    const install = get().catalogInstall;
    if (install) set({ catalogInstall: { ...install, id } }, false, 'catalog/id');
  },

  async submitCatalogInstall() {
    const install = get().catalogInstall;
    if (!install?.plan) return;
    set({ catalogInstall: { ...install, busy: true, failure: undefined, fieldErrors: {} } }, false, 'catalog/install');
    try {
      const view = await client.call('catalog.install', {
        registry: install.registry,
        name: install.name,
        version: install.plan.version,
        option: install.option,
        id: install.id,
        values: Object.fromEntries(Object.entries(install.values).filter(([, v]) => v !== '')),
      });
      set({ catalogInstall: undefined }, false, 'catalog/installed');
      get().notify('success', `Installed ${String(view.config.name)}; it starts sandboxed and its tools ask.`);
      void get().loadServers();
      void get().searchCatalog(get().catalogSearchText);
    } catch (error) {
      const current = get().catalogInstall;
      if (current)
        set(
          { catalogInstall: { ...current, busy: false, failure: messageOf(error), fieldErrors: fieldErrorsOf(error) } },
          false,
          'catalog/installFailed',
        );
    }
  },

  closeCatalogInstall: () => set({ catalogInstall: undefined }, false, 'catalog/closeInstall'),
});

/** The updates offered, and the one previewed and applied. */
const updateActions: Actions<
  'loadCatalogUpdates' | 'openCatalogUpdate' | 'setCatalogUpdateValue' | 'applyCatalogUpdate' | 'closeCatalogUpdate'
> = (client) => (set, get) => ({
  async loadCatalogUpdates() {
    try {
      set({ catalogUpdates: await client.call('catalog.updates', {}) }, false, 'catalog/updates');
    } catch {
      // No registry answered: no update is offered (the search says why).
    }
  },

  async openCatalogUpdate(serverId) {
    const base = { serverId, values: {}, fieldErrors: {}, preview: undefined, failure: undefined };
    set({ catalogUpdate: { ...base, busy: true } }, false, 'catalog/openUpdate');
    try {
      const preview = await client.call('catalog.previewUpdate', { serverId });
      set({ catalogUpdate: { ...base, preview, busy: false } }, false, 'catalog/preview');
    } catch (error) {
      set({ catalogUpdate: { ...base, busy: false, failure: messageOf(error) } }, false, 'catalog/previewFailed');
    }
  },

  setCatalogUpdateValue(key, value) {
    const update = get().catalogUpdate;
    if (update)
      set({ catalogUpdate: { ...update, values: { ...update.values, [key]: value } } }, false, 'catalog/updateValue');
  },

  async applyCatalogUpdate() {
    const update = get().catalogUpdate;
    if (!update?.preview) return;
    set({ catalogUpdate: { ...update, busy: true, failure: undefined } }, false, 'catalog/apply');
    try {
      await client.call('catalog.applyUpdate', {
        serverId: update.serverId,
        version: update.preview.to,
        values: update.values,
      });
      set({ catalogUpdate: undefined }, false, 'catalog/applied');
      void get().loadCatalogUpdates();
    } catch (error) {
      const current = get().catalogUpdate;
      if (current)
        set(
          { catalogUpdate: { ...current, busy: false, failure: messageOf(error), fieldErrors: fieldErrorsOf(error) } },
          false,
          'catalog/applyFailed',
        );
    }
  },

  closeCatalogUpdate: () => set({ catalogUpdate: undefined }, false, 'catalog/closeUpdate'),
});

export const createCatalogSlice: ClientSliceCreator<CatalogSlice> =
  (client) =>
  (...args) => ({
    ...INITIAL,
    ...searchActions(client)(...args),
    ...installActions(client)(...args),
    ...updateActions(client)(...args),
  });
