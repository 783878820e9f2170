/**
 * The servers the person configured: saving them (validated, secrets to the secret store, the
 * configuration file holding references only), connecting them through the registry, and the
 * views the GUI shows.
 */
import { randomUUID } from 'node:crypto';
import type { RequestOf, ServerView } from '../../shared/contract.js';
import { SECRET_SLOT } from '../../shared/contract.js';
import type { FieldErrors, ServerConfig, ServerSandbox } from '../../shared/serverConfig.js';
import { ServerConfigSchema, fieldErrorsOf, sandboxEnabled } from '../../shared/serverConfig.js';
import type { OAuthManager } from '../mcp/oauth/manager.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import { SecretValue } from '../secrets/secretValue.js';
import type { DescribedSecretStore } from '../secrets/types.js';
import type { ConfigStore } from '../storage/configFile.js';
import { AppError, ValidationFailedError } from './errors.js';
import type { PlannedServer } from './importer.js';
import { mapStoreKeys, secretRefs, storageKey } from './secretSlots.js';
import { statusView } from './views.js';

const SERVERS_KEY = 'servers';

export class ServerService {
  /** Entries of the configuration file that did not validate: kept as they are, never lost. */
  private invalid: unknown[] = [];
  /**
   * Changes to the configured servers, one at a time: a removal still finishing (its secrets,
   * its sign-in, the file) must not run beside a save of the same id that came right after it.
   */
  private changes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly registry: MCPToolRegistry,
    private readonly config: ConfigStore,
    private readonly secrets: DescribedSecretStore,
    private readonly warn: (message: string) => void,
    /** OAuth servers' sessions; absent, no server can sign in. */
    private readonly oauth?: OAuthManager,
    /** Throws when a configuration may not be used (one pointing at the app's own gateway). */
    private readonly refuse: (config: ServerConfig) => void = () => undefined,
  ) {}

  /** Loads the saved servers into the registry. Invalid entries are reported and kept. */
  load(): void {
    const saved = this.config.get(SERVERS_KEY);
    const entries = Array.isArray(saved) ? saved : [];
    if (saved !== undefined && !Array.isArray(saved))
      this.warn('The saved server list was not a list; it was ignored (the file is unchanged).');
    let identified = false;
    for (const entry of entries) {
      const parsed = ServerConfigSchema.safeParse(entry);
      if (!parsed.success) {
        this.invalid.push(entry);
        const id = (entry as { id?: unknown } | null)?.id;
        this.warn(
          `A saved server${typeof id === 'string' ? ` ("${id}")` : ''} is invalid and was not loaded: ${Object.entries(
            fieldErrorsOf(parsed.error),
          )
            .map(([k, v]) => `${k || 'config'}: ${v.join(', ')}`)
            .join('; ')}`,
        );
        continue;
      }
      // A server saved before identities existed gets its identity now (kept from then on).
      const config = parsed.data.uid ? parsed.data : { ...parsed.data, uid: randomUUID() };
      identified ||= config !== parsed.data;
      try {
        this.refuse(config);
        this.registry.addServer(config);
      } catch (error) {
        this.invalid.push(entry);
        this.warn(`A saved server ("${config.id}") could not be loaded: ${(error as Error).message}`);
      }
    }
    if (identified) this.persist();
  }

  async views(): Promise<ServerView[]> {
    return Promise.all(this.registry.servers().map((config) => this.view(config.id)));
  }

  async view(id: string): Promise<ServerView> {
    const config = this.registry.server(id);
    if (!config) throw new AppError('not_found', `There is no server "${id}".`);
    const status = this.registry.status(id) ?? { state: 'idle' };
    const secrets: ServerView['secrets'] = {};
    for (const { slot, ref } of secretRefs(config)) {
      secrets[slot] =
        ref.source === 'store'
          ? (await this.secrets.has(ref.key))
            ? 'set'
            : 'not_set'
          : process.env[ref.name]
            ? 'set'
            : 'not_set';
    }
    const oauth = await this.oauth?.view(config);
    return {
      config: mapStoreKeys(config, (slot) => slot),
      status: statusView(status),
      secrets,
      toolCount: this.registry.allTools().filter((t) => t.serverId === id).length,
      ...(oauth ? { oauth } : {}),
    };
  }

  /** Creates or updates a server from the GUI's form: validates everything before changing anything. */
  save(request: RequestOf<'servers.save'>): Promise<ServerView> {
    return this.serially(() => this.saveNow(request));
  }

  private async saveNow(request: RequestOf<'servers.save'>): Promise<ServerView> {
    const raw = request.config;
    const id = typeof raw.id === 'string' ? raw.id : '';
    const exists = this.registry.server(id) !== undefined;
    const fieldErrors: FieldErrors = {};
    const add = (field: string, message: string): void => void (fieldErrors[field] ??= []).push(message);

    if (request.mode === 'create' && exists) add('id', 'a server with this id already exists');
    if (request.mode === 'update' && !exists) add('id', 'no server with this id exists');

    // The secrets the form sent must belong to secret fields of this configuration.
    const refs = secretRefs(raw);
    const storeSlots = new Set(refs.filter((r) => r.ref.source === 'store').map((r) => r.slot));
    const provided = request.secrets ?? {};
    for (const slot of Object.keys(provided)) {
      if (!SECRET_SLOT.test(slot) || !storeSlots.has(slot))
        add(slot, 'a secret value was sent for a field that is not a stored secret');
    }
    const normalized = mapStoreKeys(raw, (slot) => storageKey(id, slot));
    const parsed = ServerConfigSchema.safeParse(normalized);
    if (!parsed.success)
      for (const [field, messages] of Object.entries(fieldErrorsOf(parsed.error)))
        for (const m of messages) add(field, m);
    // Every stored secret field needs a value: sent now, or stored before under the same key.
    for (const slot of storeSlots) {
      const value = provided[slot];
      if (value === undefined || value === '') {
        if (!id || !(await this.secrets.has(storageKey(id, slot))))
          add(slot, 'enter a value (it is stored securely and never shown again)');
      }
    }
    if (Object.keys(fieldErrors).length > 0 || !parsed.success) {
      throw new ValidationFailedError('The server settings are not valid; nothing was saved.', fieldErrors);
    }
    this.refuse(parsed.data);
    const previous = this.registry.server(id);
    // The identity is the app's, never the form's: kept on update, new on create.
    const config: ServerConfig = {
      ...parsed.data,
      // Where a catalog install came from is the app's record, not a form field: an edit that does
      // not send one keeps it (a catalog update sends the new one).
      ...(request.mode === 'update' && !parsed.data.catalog && previous?.catalog ? { catalog: previous.catalog } : {}),
      uid: (request.mode === 'update' ? previous?.uid : undefined) ?? randomUUID(),
    };

    // Secrets first: a configuration must never point at a secret that is not there.
    for (const slot of storeSlots) {
      const value = provided[slot];
      if (value) await this.secrets.set(storageKey(id, slot), new SecretValue(value));
    }
    if (request.mode === 'create') this.registry.addServer(config);
    else await this.registry.updateServer(config);
    if (previous) await this.deleteUnusedSecrets(previous, config);
    // New OAuth settings or a new URL: the old sign-in is for something else now.
    if (
      previous &&
      previous.transport === 'streamable_http' &&
      (config.transport !== 'streamable_http' ||
        previous.url !== config.url ||
        JSON.stringify(previous.auth) !== JSON.stringify(config.auth))
    ) {
      await this.oauth?.forget(id);
    }
    this.persist();
    // A ready connection outlives an edit that leaves how the server is reached alone (name,
    // priority, roots — which it is told about): only a new server, a changed connection (the
    // registry dropped it) or a new secret value connects again.
    const keepsConnection =
      request.mode === 'update' &&
      !Object.values(provided).some((value) => value !== '') &&
      this.registry.status(config.id)?.state === 'ready';
    if (config.enabled && !keepsConnection) this.connectInBackground(config.id);
    return this.view(config.id);
  }

  remove(id: string): Promise<boolean> {
    return this.serially(() => this.removeNow(id));
  }

  private async removeNow(id: string): Promise<boolean> {
    const config = this.registry.server(id);
    if (!config) return false;
    await this.registry.removeServer(id);
    for (const { ref } of secretRefs(config)) if (ref.source === 'store') await this.secrets.delete(ref.key);
    await this.oauth?.forget(id);
    this.persist();
    return true;
  }

  // ── OAuth ──────────────────────────────────────────────────────────────────────

  /**
   * Starts a sign-in: any saved sign-in is replaced (a new account, more scopes), the browser
   * opens when the server asks for it, and the server connects once the person has signed in.
   * Answers at once; the status and the view stream in as events.
   */
  async signIn(id: string): Promise<ServerView> {
    const config = this.require(id);
    const session = this.oauth?.sessionFor(config);
    if (!session)
      throw new AppError(
        'validation',
        `Server "${id}" does not use OAuth; set its authentication to OAuth sign-in first.`,
        { serverId: id },
      );
    if (!config.enabled)
      throw new AppError('unavailable', `Server "${id}" is disabled; enable it first.`, { serverId: id });
    await session.clearTokens();
    await session.beginInteractive();
    this.registry
      .connect(id)
      .catch(() => undefined) // the status says how it went
      .finally(() => void session.endInteractive());
    return this.view(id);
  }

  /** Forgets the server's tokens (a sign-in in progress is cancelled); it then shows as needing a sign-in. */
  async signOut(id: string): Promise<ServerView> {
    const config = this.require(id);
    const session = this.oauth?.sessionFor(config);
    if (!session) throw new AppError('validation', `Server "${id}" does not use OAuth.`, { serverId: id });
    await session.signOut();
    await this.registry.disconnect(id);
    if (config.enabled) this.connectInBackground(id);
    return this.view(id);
  }

  setEnabled(id: string, enabled: boolean): Promise<ServerView> {
    return this.serially(async () => {
      const config = this.require(id);
      await this.registry.updateServer({ ...config, enabled });
      this.persist();
      if (enabled) this.connectInBackground(id);
      return this.view(id);
    });
  }

  setTrusted(id: string, trusted: boolean): Promise<void> {
    return this.serially(async () => {
      const config = this.require(id);
      await this.registry.updateServer({ ...config, trusted });
      this.persist();
    });
  }

  /**
   * Changes a stdio server's sandbox section (issue 29: a host answered "always", a host revoked,
   * the choice to run unsandboxed), saved and applied: the server restarts with it.
   */
  updateSandbox(id: string, change: (sandbox: ServerSandbox) => ServerSandbox): Promise<void> {
    return this.serially(async () => {
      const config = this.require(id);
      if (config.transport !== 'stdio')
        throw new AppError('validation', `Server "${id}" is not a stdio server: it has no sandbox.`, { serverId: id });
      const current = config.sandbox ?? {
        enabled: sandboxEnabled(config),
        read: [],
        denyRead: [],
        write: [],
        hosts: [],
      };
      await this.registry.updateServer({ ...config, sandbox: change(current) });
      this.persist();
      if (config.enabled) this.connectInBackground(id);
    });
  }

  /**
   * Imports planned servers all or nothing: every one is checked (configuration, id free, each
   * secret present) before the first is saved.
   */
  importPlanned(planned: PlannedServer[], inputs: Record<string, string>): Promise<ServerView[]> {
    return this.serially(() => this.importNow(planned, inputs));
  }

  private async importNow(planned: PlannedServer[], inputs: Record<string, string>): Promise<ServerView[]> {
    const problems: FieldErrors = {};
    const ready: Array<{ config: Record<string, unknown>; secrets: Record<string, string> }> = [];
    for (const server of planned) {
      const errors: string[] = [];
      if (!server.config) errors.push(...(server.problems.length ? server.problems : ['it cannot be imported']));
      else {
        const id = String(server.config.id);
        if (this.registry.server(id)) errors.push(`a server with the id "${id}" already exists`);
        const secrets = { ...server.fileSecrets };
        for (const [slot, inputId] of Object.entries(server.inputSecrets)) {
          const value = inputs[inputId];
          if (value) secrets[slot] = value;
          else errors.push(`enter a value for "${inputId}"`);
        }
        const parsed = ServerConfigSchema.safeParse(mapStoreKeys(server.config, (slot) => storageKey(id, slot)));
        if (!parsed.success)
          for (const [field, messages] of Object.entries(fieldErrorsOf(parsed.error)))
            errors.push(`${field || 'config'}: ${messages.join(', ')}`);
        ready.push({ config: server.config, secrets });
      }
      if (errors.length) problems[server.name] = errors;
    }
    if (Object.keys(problems).length > 0) {
      throw new ValidationFailedError(
        `Nothing was imported: ${Object.entries(problems)
          .map(([name, errors]) => `${name}: ${errors.join('; ')}`)
          .join(' | ')}`,
        problems,
      );
    }
    const views: ServerView[] = [];
    for (const { config, secrets } of ready) views.push(await this.saveNow({ mode: 'create', config, secrets }));
    return views;
  }

  async connect(id: string): Promise<ServerView> {
    this.require(id);
    await this.registry.connect(id);
    return this.view(id);
  }

  async disconnect(id: string): Promise<ServerView> {
    this.require(id);
    await this.registry.disconnect(id);
    return this.view(id);
  }

  private serially<T>(change: () => Promise<T>): Promise<T> {
    const next = this.changes.then(change, change);
    this.changes = next.catch(() => undefined);
    return next;
  }

  private require(id: string): ServerConfig {
    const config = this.registry.server(id);
    if (!config) throw new AppError('not_found', `There is no server "${id}".`);
    return config;
  }

  private connectInBackground(id: string): void {
    // Status events report the outcome; a failure is shown on the server, not thrown here.
    this.registry.connect(id).catch(() => undefined);
  }

  private async deleteUnusedSecrets(before: ServerConfig, after: ServerConfig): Promise<void> {
    const kept = new Set(secretRefs(after).flatMap(({ ref }) => (ref.source === 'store' ? [ref.key] : [])));
    for (const { ref } of secretRefs(before)) {
      if (ref.source === 'store' && !kept.has(ref.key)) await this.secrets.delete(ref.key);
    }
  }

  private persist(): void {
    this.config.set(SERVERS_KEY, [...this.registry.servers(), ...this.invalid]);
  }
}
