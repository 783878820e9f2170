/**
 * The Catalog (issue 30): the MCP Registries of the settings, in order, searched and cached on
 * disk; one-step installs of an entry's package or remote (the form it needs, checked before
 * anything is saved; secrets to the secret store through the server service; the version pinned;
 * an mcpb bundle's hash checked); installed entries' updates, shown as a list of changes before
 * they are applied. Installs and updates are recorded in the server's configuration (who, when,
 * which version). Core-free: the server service and the configuration are handed in.
 */
import { join } from 'node:path';
import type {
  CatalogEntryView,
  InstallField,
  InstallOption,
  InstallPlanView,
  RegistryStateView,
  ServerView,
} from '../../shared/contract.js';
import { OFFICIAL_REGISTRY_URL } from '../../shared/contract.js';
import type { ErrorCode } from '../../shared/errors.js';
import type { ServerDetail } from '../../shared/registryServer.js';
import { OFFICIAL_META_KEY } from '../../shared/registryServer.js';
import type { CatalogOrigin, ServerConfig } from '../../shared/serverConfig.js';
import { resolveCommand } from '../sandbox/commandPath.js';
import { ownFolderOf } from '../sandbox/serverSandbox.js';
import { downloadBundle, unpackBundle } from './bundle.js';
import type { CachedListing } from './cache.js';
import { CatalogCache } from './cache.js';
import { CatalogError } from './errors.js';
import type { Answers, HasProgram } from './installPlan.js';
import { buildConfig, checkAnswers, fieldsOf, optionsOf, suggestId } from './installPlan.js';
import type { EntryResult, RegistryClientOptions } from './registryClient.js';
import { RegistryClient } from './registryClient.js';

const REGISTRIES_KEY = 'catalog.registries';
/** An answer younger than this is shown without asking the registry again (Refresh asks now). */
const FRESH_MS = 10 * 60_000;
/** `updated_since` asks from a little before the last answer: the two clocks may differ. */
const CLOCK_MARGIN_MS = 5 * 60_000;
/** Who made a change from the app's window (the contract names no person). */
const BY_PERSON = 'person (app window)';

export interface CatalogDeps {
  dataDir: string;
  config: { get(key: string): unknown; set(key: string, value: unknown): void };
  /** The configured servers (store references only). */
  servers: () => ServerConfig[];
  /** Saves a server as the Servers view does: validated, secrets to the store, nothing on error. */
  save: (request: {
    mode: 'create' | 'update';
    config: Record<string, unknown>;
    secrets: Record<string, string>;
  }) => Promise<ServerView>;
  /** Told of each secret value before it is stored (the redactor). */
  onSecret?: (value: string) => void;
  hasProgram?: HasProgram;
  client?: RegistryClientOptions;
  now?: () => number;
}

interface EntryRef {
  registry: string;
  name: string;
  version?: string | undefined;
  option: InstallOption;
}

export class CatalogService {
  private readonly cache: CatalogCache;
  private readonly hasProgram: HasProgram;
  private readonly now: () => number;

  constructor(private readonly deps: CatalogDeps) {
    this.cache = new CatalogCache(join(deps.dataDir, 'catalog-cache'));
    this.hasProgram =
      deps.hasProgram ?? ((command) => resolveCommand(command, process.env.PATH, process.cwd()).path !== undefined);
    this.now = deps.now ?? Date.now;
  }

  registries(): string[] {
    const saved = this.deps.config.get(REGISTRIES_KEY);
    return Array.isArray(saved) && saved.length > 0 && saved.every((u) => typeof u === 'string')
      ? (saved as string[])
      : [OFFICIAL_REGISTRY_URL];
  }

  setRegistries(registries: string[]): string[] {
    this.deps.config.set(REGISTRIES_KEY, [...new Set(registries.map((u) => u.replace(/\/+$/, '')))]);
    return this.registries();
  }

  private client(registry: string): RegistryClient {
    return new RegistryClient(registry, this.deps.client);
  }

  /** Every registry, in order: fresh answers, else the cache's (with its age and the failure). */
  async search(
    search: string,
    refresh: boolean,
  ): Promise<{ entries: CatalogEntryView[]; registries: RegistryStateView[] }> {
    const states: RegistryStateView[] = [];
    const entries: CatalogEntryView[] = [];
    const results = await Promise.all(this.registries().map((url) => this.listingOf(url, search.trim(), refresh)));
    for (const { url, listing, state } of results) {
      states.push(state);
      for (const entry of listing?.entries ?? []) {
        const view = this.entryView(url, entry);
        if (view) entries.push(view);
      }
    }
    return { entries, registries: states };
  }

  private async listingOf(
    url: string,
    search: string,
    refresh: boolean,
  ): Promise<{ url: string; listing?: CachedListing; state: RegistryStateView }> {
    const cached = this.cache.read(url, search);
    const stateOf = (listing: CachedListing, fromCache: boolean): RegistryStateView => ({
      url,
      fetchedAt: listing.fetchedAt,
      fromCache,
      truncated: listing.truncated,
    });
    if (cached && !refresh && this.now() - cached.fetchedAt < FRESH_MS)
      return { url, listing: cached, state: stateOf(cached, true) };
    const fetchedAt = this.now();
    try {
      const since = cached ? new Date(cached.fetchedAt - CLOCK_MARGIN_MS).toISOString() : undefined;
      const answer = await this.client(url).list({
        search,
        version: 'latest',
        ...(since ? { updatedSince: since } : {}),
      });
      const listing: CachedListing = {
        registry: url,
        search,
        fetchedAt,
        truncated: answer.truncated || (cached?.truncated ?? false),
        entries: cached ? merge(cached.entries, answer.entries) : answer.entries,
      };
      this.cache.write(listing);
      return { url, listing, state: stateOf(listing, false) };
    } catch (error) {
      const failure = errorOf(error);
      if (cached) return { url, listing: cached, state: { ...stateOf(cached, true), error: failure } };
      return { url, state: { url, fromCache: false, truncated: false, error: failure } };
    }
  }

  private entryView(registry: string, entry: EntryResult): CatalogEntryView | undefined {
    if (!entry.ok) return { ...entry, registry };
    const official = entry.response._meta?.[OFFICIAL_META_KEY];
    if (official?.status === 'deleted') return undefined;
    const server = entry.response.server;
    return {
      ok: true,
      registry,
      server,
      ...(official ? { official } : {}),
      options: optionsOf(server, this.hasProgram),
      installed: this.deps
        .servers()
        .filter((s) => s.catalog?.name === server.name && s.catalog.registry === registry)
        .map((s) => s.id),
    };
  }

  private async fetchEntry(ref: EntryRef): Promise<ServerDetail> {
    if (!this.registries().includes(ref.registry))
      throw new CatalogError('not_found', `${ref.registry} is not one of the catalog's registries.`);
    return (await this.client(ref.registry).version(ref.name, ref.version ?? 'latest')).server;
  }

  /** The form an entry's option needs, and whether it can be installed here. */
  async plan(ref: EntryRef): Promise<InstallPlanView> {
    const server = await this.fetchEntry(ref);
    const option = optionOf(server, ref.option, this.hasProgram);
    const taken = (id: string) => this.deps.servers().some((s) => s.id === id);
    const fields = fieldsOf(server, ref.option);
    const preview = buildConfig({ id: 'preview', registry: ref.registry, server, option: ref.option, answers: {} });
    return {
      registry: ref.registry,
      name: server.name,
      version: server.version,
      option: ref.option,
      suggestedId: suggestId(server.name, taken),
      fields,
      summary:
        server.packages?.[ref.option.index]?.registryType === 'mcpb' && ref.option.kind === 'package'
          ? `bundle ${server.packages[ref.option.index]!.identifier}`
          : preview.summary,
      ...(option.blocker ? { blocker: option.blocker } : {}),
    };
  }

  /** Installs one entry's option: checked, then (mcpb) downloaded and verified, then saved. */
  async install(ref: EntryRef & { id: string; values: Answers }): Promise<ServerView> {
    const server = await this.fetchEntry(ref);
    const option = optionOf(server, ref.option, this.hasProgram);
    if (option.blocker)
      throw new CatalogError(option.installable ? 'not_supported' : 'runtime_missing', option.blocker);
    const errors = checkAnswers(fieldsOf(server, ref.option), ref.values);
    if (this.deps.servers().some((s) => s.id === ref.id))
      (errors.id ??= []).push('a server with this id already exists');
    if (Object.keys(errors).length)
      throw CatalogError.invalid('The install form is not complete; nothing was saved.', errors);
    const bundle = await this.bundleFor(server, ref.option, ref.id);
    const history: CatalogOrigin['history'] = [
      { at: this.now(), by: BY_PERSON, action: 'installed', version: server.version },
    ];
    const built = buildConfig({
      id: ref.id,
      registry: ref.registry,
      server,
      option: ref.option,
      answers: ref.values,
      origin: { history },
      ...(bundle ? { bundle } : {}),
    });
    for (const value of Object.values(built.secrets)) this.deps.onSecret?.(value);
    return this.deps.save({ mode: 'create', config: built.config, secrets: built.secrets });
  }

  private async bundleFor(server: ServerDetail, option: InstallOption, id: string) {
    const pkg = option.kind === 'package' ? server.packages?.[option.index] : undefined;
    if (pkg?.registryType !== 'mcpb') return undefined;
    const bytes = await downloadBundle(pkg.identifier, pkg.fileSha256!);
    return unpackBundle(bytes, join(ownFolderOf(this.deps.dataDir, id), 'bundle'));
  }

  /** Installed servers whose registry has a newer version (a registry that does not answer is skipped). */
  async updates(): Promise<{ serverId: string; name: string; installed: string; latest: string }[]> {
    const installed = this.deps.servers().filter((s) => s.catalog);
    const answers = await Promise.all(
      installed.map(async (s) => {
        try {
          const latest = (await this.client(s.catalog!.registry).version(s.catalog!.name)).server.version;
          return latest !== s.catalog!.version
            ? [{ serverId: s.id, name: s.catalog!.name, installed: s.catalog!.version, latest }]
            : [];
        } catch {
          return [];
        }
      }),
    );
    return answers.flat();
  }

  /** What updating to the latest version changes, and the fields it newly needs. */
  async previewUpdate(serverId: string): Promise<{
    from: string;
    to: string;
    changes: { what: string; before: string; after: string }[];
    fields: InstallField[];
  }> {
    const current = this.installed(serverId);
    const origin = current.catalog!;
    const latest = (await this.client(origin.registry).version(origin.name)).server;
    const next = this.rebuild(current, latest, {});
    const fields = newlyNeeded(current, latest, origin);
    return {
      from: origin.version,
      to: latest.version,
      changes: changesOf(current, next.config, origin, latest),
      fields,
    };
  }

  /** Applies an update to `version` (the one previewed), with values for the fields it newly needs. */
  async applyUpdate(serverId: string, version: string, values: Answers): Promise<ServerView> {
    const current = this.installed(serverId);
    const origin = current.catalog!;
    const server = (await this.client(origin.registry).version(origin.name, version)).server;
    const fields = fieldsOf(server, origin.option);
    const needed = new Set(newlyNeeded(current, server, origin).map((f) => f.key));
    // Secrets already in the store are kept; only the ones the new version newly needs are asked.
    const checked = fields.filter((f) => !f.secret || needed.has(f.key));
    const errors = checkAnswers(checked, pickKeys({ ...origin.inputs, ...values }, checked));
    if (Object.keys(errors).length)
      throw CatalogError.invalid('The update needs more answers; nothing was changed.', errors);
    const next = this.rebuild(current, server, values);
    for (const value of Object.values(next.secrets)) this.deps.onSecret?.(value);
    return this.deps.save({ mode: 'update', config: next.config, secrets: next.secrets });
  }

  private installed(serverId: string): ServerConfig {
    const current = this.deps.servers().find((s) => s.id === serverId);
    if (!current?.catalog)
      throw new CatalogError('not_found', `Server "${serverId}" was not installed from a registry.`);
    return current;
  }

  /** The configuration of `server` with the answers kept from the install; the person's own settings stay. */
  private rebuild(current: ServerConfig, server: ServerDetail, values: Answers) {
    const origin = current.catalog!;
    const history = [
      ...origin.history,
      { at: this.now(), by: BY_PERSON, action: 'updated' as const, version: server.version, from: origin.version },
    ].slice(-100);
    const built = buildConfig({
      id: current.id,
      registry: origin.registry,
      server,
      option: origin.option,
      answers: { ...origin.inputs, ...values },
      origin: { history },
      storedSlots: storedSlotsOf(current),
    });
    const own = {
      name: current.name,
      timeoutMs: current.timeoutMs,
      priority: current.priority,
      enabled: current.enabled,
      trusted: current.trusted,
      protocolEra: current.protocolEra,
      ...(current.roots ? { roots: current.roots } : {}),
      ...(current.transport === 'stdio' && current.sandbox ? { sandbox: current.sandbox } : {}),
    };
    return { ...built, config: { ...built.config, ...own } };
  }
}

function optionOf(server: ServerDetail, option: InstallOption, hasProgram: HasProgram) {
  const found = optionsOf(server, hasProgram).find(
    (o) => o.option.kind === option.kind && o.option.index === option.index,
  );
  if (!found) throw new CatalogError('not_found', `The entry ${server.name} has no such ${option.kind}.`);
  return found;
}

function pickKeys(answers: Answers, fields: InstallField[]): Answers {
  const keys = new Set(fields.map((f) => f.key));
  return Object.fromEntries(Object.entries(answers).filter(([k]) => keys.has(k)));
}

/** The secret slots the server has values for in the store (`env.NAME`, `headers.NAME`, `auth.token`). */
function storedSlotsOf(current: ServerConfig): Set<string> {
  const slots = new Set<string>();
  const isRef = (v: unknown) => typeof v === 'object' && v !== null && 'secret' in v;
  if (current.transport === 'stdio') {
    for (const [name, v] of Object.entries(current.env)) if (isRef(v)) slots.add(`env.${name}`);
  } else {
    for (const [name, v] of Object.entries(current.headers)) if (isRef(v)) slots.add(`headers.${name}`);
    if (current.auth.kind === 'bearer') slots.add('auth.token');
  }
  return slots;
}

/** Fields of the new version with no answer yet: non-secret ones not answered at install, secret ones with no stored slot. */
function newlyNeeded(current: ServerConfig, server: ServerDetail, origin: CatalogOrigin): InstallField[] {
  const stored = storedSlotsOf(current);
  const slotOf = (key: string) =>
    key.toLowerCase() === 'headers.authorization' || key.toLowerCase().startsWith('headers.authorization.')
      ? 'auth.token'
      : key.split('.').slice(0, 2).join('.');
  return fieldsOf(server, origin.option).filter((f) =>
    f.secret
      ? f.required && !stored.has(slotOf(f.key))
      : f.required && origin.inputs[f.key] === undefined && f.default === undefined,
  );
}

function changesOf(
  current: ServerConfig,
  next: Record<string, unknown>,
  origin: CatalogOrigin,
  latest: ServerDetail,
): { what: string; before: string; after: string }[] {
  const changes = [{ what: 'version', before: origin.version, after: latest.version }];
  const add = (what: string, before: string, after: string) => {
    if (before !== after) changes.push({ what, before, after });
  };
  if (current.transport === 'stdio') {
    add('command', current.command, String(next.command));
    add('arguments', current.args.join(' '), ((next.args as string[] | undefined) ?? []).join(' '));
    add(
      'environment',
      Object.keys(current.env).sort().join(', '),
      Object.keys((next.env as object | undefined) ?? {})
        .sort()
        .join(', '),
    );
  } else {
    add('URL', current.url, String(next.url));
    add(
      'headers',
      Object.keys(current.headers).sort().join(', '),
      Object.keys((next.headers as object | undefined) ?? {})
        .sort()
        .join(', '),
    );
  }
  return changes;
}

/** New and changed entries replace the cached ones of the same name; the others stay. */
function merge(old: EntryResult[], fresh: EntryResult[]): EntryResult[] {
  const nameOf = (e: EntryResult) => (e.ok ? e.response.server.name : e.name);
  const freshNames = new Set(fresh.map(nameOf).filter(Boolean));
  return [...old.filter((e) => !freshNames.has(nameOf(e))), ...fresh];
}

function errorOf(error: unknown): { code: ErrorCode; message: string } {
  if (error instanceof CatalogError) return { code: error.code, message: error.message };
  return { code: 'internal', message: (error as Error).message };
}
