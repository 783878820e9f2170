/**
 * `miniharness serve`: the core, the agent gateway and the web UI on a server, for a team (plain
 * Node, no Electron). What it reads is in config.ts, where it may listen in listenPolicy.ts, who
 * may do what in serveAccess.ts and roles.ts. On SIGTERM it stops being ready, refuses new agent
 * requests (503 + Retry-After), lets the contract requests and the agent calls in flight finish
 * (up to the grace period), then closes the host and the core.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { buildCore } from '../core/core.js';
import { chooseWorkspaceDir } from '../core/dataDir.js';
import type { Core } from '../core/types.js';
import { FileSecretStore } from '../secrets/fileSecretStore.js';
import { ensurePrivateDir } from '../storage/privateFiles.js';
import type { DatabaseSelection } from '../storage/selectDatabase.js';
import { databaseAt } from '../storage/selectDatabase.js';
import { openConfConfigStore } from '../web/confConfigStore.js';
import type { WebHost } from '../web/host.js';
import { startWebHost } from '../web/host.js';
import { AuditLog } from './audit.js';
import type { ServeConfig } from './config.js';
import { ServeConfigError } from './config.js';
import { listenRefusal } from './listenPolicy.js';
import type { PendingSignIns } from './oidcSignIn.js';
import { OidcSignIn } from './oidcSignIn.js';
import { People } from './people.js';
import type { PeopleStorage } from './peopleStore.js';
import { FilePeopleStore } from './peopleStore.js';
import { PostgresPeopleStore } from './postgresPeopleStore.js';
import { PostgresPendingSignIns, PostgresSessions } from './postgresSessions.js';
import { serveAccess } from './serveAccess.js';
import { SERVE_SESSION_MIGRATIONS } from './serveMigrations.js';
import type { Sessions } from './sessions.js';
import { MemorySessions, RateLimit } from './sessions.js';
import type { PostgresDatabase } from '../storage/postgres/pool.js';
import { openPostgres } from '../storage/postgres/pool.js';

export interface ServeOptions {
  config: ServeConfig;
  /** The built renderer (out/renderer). */
  staticDir: string;
  version: string;
  /** Lines for the operator (default: stdout). */
  say?: (line: string) => void;
  /** How long a shutdown waits for requests in flight (default 30 s). */
  graceMs?: number;
}

export interface Serving {
  host: WebHost;
  core: Core;
  /** The address the host answers on, as people would open it. */
  url: string;
  /** Stops taking work, waits for what runs, closes. Idempotent. */
  shutdown(): Promise<void>;
}

/** SQLite in the data folder, or the configured PostgreSQL (its URL is named only without credentials). */
function databaseOf(config: ServeConfig): DatabaseSelection {
  try {
    return databaseAt(config.databaseUrl);
  } catch (error) {
    // A URL that is not postgres:// is the configuration's mistake (exit 2), not an outage.
    throw new ServeConfigError((error as Error).message);
  }
}

/** A configured server to create: its id, to save it as an update when a former start already created it. */
const CreateSchema = z.looseObject({ mode: z.literal('create'), config: z.looseObject({ id: z.string() }) });

/** Servers and rules from the configuration, through the contract (validated there as a page's would be). */
async function applyConfigured(core: Core, config: ServeConfig): Promise<void> {
  // Started again on the same data folder (a restart, a killed instance), the file's servers exist: updated, not refused.
  const listed = await core.dispatch('servers.list', {});
  // Not treated as "none saved": every server would then be refused as existing, naming the wrong cause.
  if (!listed.ok) throw new ServeConfigError(`The saved servers could not be read: ${listed.error.message}`);
  const saved = new Set((listed.result as Array<{ config: { id: string } }>).map((s) => s.config.id));
  const asSaved = (payload: unknown): unknown => {
    const create = CreateSchema.safeParse(payload);
    return create.success && saved.has(create.data.config.id) ? { ...create.data, mode: 'update' } : payload;
  };
  const steps = [
    ...config.servers.map((payload, i) => ({
      channel: 'servers.save',
      payload: asSaved(payload),
      at: `servers[${i}]`,
    })),
    ...config.rules.map((payload, i) => ({ channel: 'permissions.setToolLevel', payload, at: `rules[${i}]` })),
  ];
  for (const step of steps) {
    const result = await core.dispatch(step.channel, step.payload);
    if (!result.ok) throw new ServeConfigError(`The configuration's ${step.at} was refused: ${result.error.message}`);
  }
}

interface SessionStores {
  sessions: Sessions;
  pending: PendingSignIns | undefined;
  close(): Promise<void>;
}

/**
 * People's sessions and sign-ins in flight: in PostgreSQL when the core is (any instance takes
 * any request; postgresSessions.ts), else in this instance's memory. A small pool of their own.
 */
async function openSessionStores(database: DatabaseSelection, secure: boolean): Promise<SessionStores> {
  if (database.kind !== 'postgres')
    return { sessions: new MemorySessions(secure), pending: undefined, close: async () => {} };
  const db: PostgresDatabase = await openPostgres(database.url, {
    max: 4,
    migrations: { serve_sessions: SERVE_SESSION_MIGRATIONS },
  });
  try {
    const sessions = await PostgresSessions.open(db.pool, database.url, secure);
    return {
      sessions,
      pending: new PostgresPendingSignIns(db.pool),
      close: async () => {
        await sessions.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}

export async function startServe(options: ServeOptions): Promise<Serving> {
  const { config } = options;
  const say = options.say ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const refusal = listenRefusal(config);
  if (refusal) throw new ServeConfigError(refusal);
  ensurePrivateDir(config.dataDir);
  const database = databaseOf(config);
  const core = await buildCore({
    mode: 'browser',
    dataDir: config.dataDir,
    workspaceDir: chooseWorkspaceDir(config.workspaceDir),
    // No OS keyring on a server: the data folder's private file.
    secrets: new FileSecretStore(join(config.dataDir, 'secrets.json'), 'A server keeps secrets in its data folder'),
    config: openConfConfigStore(config.dataDir),
    version: options.version,
    database,
    gateway: {
      ...(config.gateway.port !== undefined ? { port: config.gateway.port } : {}),
      ...(config.gateway.publicUrl !== undefined ? { publicUrl: config.gateway.publicUrl } : {}),
    },
  });
  let ready = false;
  let draining = false;
  let host: WebHost | undefined;
  let peopleStore: PeopleStorage | undefined;
  let stores: SessionStores | undefined;
  try {
    await core.start();
    await applyConfigured(core, config);
    const secure = config.tls !== undefined || (config.publicUrl?.startsWith('https:') ?? false);
    // Roles and tokens where the rest is: one data folder's file, or the database every instance shares.
    peopleStore = config.databaseUrl
      ? await PostgresPeopleStore.open(config.databaseUrl, say)
      : new FilePeopleStore(config.dataDir);
    const people = new People(peopleStore, config.people, config.apiTokens);
    stores = await openSessionStores(database, secure);
    const { pending } = stores;
    const oidc =
      config.oidc &&
      new OidcSignIn({
        ...config.oidc,
        publicUrl: () => config.publicUrl ?? host?.url ?? '',
        secure,
        ...(pending ? { pending } : {}),
      });
    const access = serveAccess({
      publicUrl: config.publicUrl,
      trustedProxies: config.trustedProxies,
      sessions: stores.sessions,
      people,
      oidc,
      audit: new AuditLog(config.dataDir, say),
      signInLimit: new RateLimit(config.signInPerMinute),
      health: () =>
        ready ? { ready: true } : { ready: false, reason: draining ? 'shutting down' : 'starting', draining },
    });
    host = await startWebHost({
      core,
      staticDir: options.staticDir,
      access,
      port: config.listen.port,
      listen: { host: config.listen.host, ...(config.tls ? { tls: config.tls } : {}) },
    });
    const url = config.publicUrl ?? host.url;
    const bootstrap = await people.bootstrapToken();
    if (bootstrap)
      say(
        `MiniHarness: no admin yet. The first admin signs in at ${new URL(`/auth/login?bootstrap=${bootstrap}`, url).href} (this link works once).`,
      );
    say(`MiniHarness serve: listening on ${config.listen.host}:${host.port}; people open ${url}`);
    ready = true;
    const running = host;
    const sessionStores = stores;
    let closing: Promise<void> | undefined;
    const shutdown = (): Promise<void> =>
      (closing ??= (async () => {
        ready = false;
        draining = true;
        // Web/CLI requests and the agent gateway's calls finish together, within the one grace period.
        const graceMs = options.graceMs ?? 30_000;
        await Promise.all([waitForIdle(running, graceMs), core.drainAgents(graceMs)]);
        await running.close();
        await people.close();
        await sessionStores.close();
        await core.close();
      })());
    return { host: running, core, url, shutdown };
  } catch (error) {
    await host?.close().catch(() => undefined);
    await peopleStore?.close().catch(() => undefined);
    await stores?.close().catch(() => undefined);
    await core.close().catch(() => undefined);
    throw error;
  }
}

/** Until no contract request runs, or the grace period ends. */
async function waitForIdle(host: WebHost, graceMs: number): Promise<void> {
  const until = Date.now() + graceMs;
  while (host.inFlight() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
}
