/**
 * The app core as the two hosts (the Electron shell and the browser-mode host) see it: a
 * dispatcher for the IPC contract, a stream of contract events, and a lifecycle.
 */
import type { DispatchResult } from '../../shared/bridge.js';
import type { EventName } from '../../shared/contract.js';
import type { DescribedSecretStore } from '../secrets/types.js';
import type { ClientPlaces } from './agentConfigFiles.js';
import type { ConfigStore } from '../storage/configFile.js';
import type { DatabaseSelection } from '../storage/selectDatabase.js';

export interface CoreOptions {
  mode: 'electron' | 'browser';
  /** Per-user data folder: the database, the tool cache, the permission rules. */
  dataDir: string;
  /**
   * Where the core stores what several instances share (storage/selectDatabase.ts: `--database`,
   * MINIHARNESS_DATABASE_URL). Default `{ kind: 'sqlite' }`: the file in `dataDir`, as always.
   * `{ kind: 'postgres', url, where }`: tool-call checkpoints (History, replay) in PostgreSQL.
   */
  database?: DatabaseSelection;
  /**
   * Where the local tools read, write and run commands (electron/core/dataDir.ts
   * defaultWorkspaceDir() in both hosts). Must not overlap the data folder; the core refuses to
   * start otherwise.
   */
  workspaceDir: string;
  secrets: DescribedSecretStore;
  config: ConfigStore;
  version: string;
  /**
   * The agent gateway. `port` overrides the saved setting for this run (0: any free port — tests,
   * `--gateway-port`); `stdio`: how the stdio entry (`miniharness-gateway`) is started here,
   * shown in "Connect an agent"; `idleMs` and `clock`: when an unseen client stops being
   * connected, and the time it is measured by (tests; `idleMs` overrides the saved setting for
   * this run, as `port` does, until the setting is changed; default clock: Date.now).
   */
  gateway?: {
    port?: number;
    stdio?: { command: string; args: string[] };
    idleMs?: number;
    clock?: () => number;
    /** Open 2025 sessions per agent (default 32); tests set a small one. */
    maxSessionsPerAgent?: number;
    /** The address agents use through a balancer: one OAuth issuer for every instance (signIn.ts `publicUrl`). */
    publicUrl?: string;
    /** How often a call waiting for approval tells the agent so, by progress (default WAITING_PROGRESS_MS); tests set a short one. */
    waitingProgressMs?: number;
    /**
     * How the sign-in fetches a client's Client ID Metadata Document (an https client_id; default:
     * fetch, with oidc-provider's limits). Tests answer Client ID Metadata Document fetches; a JSON
     * answer is still required.
     */
    fetchClientMetadata?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  };
  /** Where "Add to …" finds the agent applications' config files (default: this user's home, OS and environment; tests: a scratch home). */
  clientConfigPlaces?: ClientPlaces;
  /** Problems the host met before the core started (a corrupt store moved aside, …), for the GUI. */
  warnings?: string[];
  /**
   * Opens an OAuth sign-in page in the system browser (Electron: `shell.openExternal`). Absent
   * (browser mode), the core sends the page an `oauth.authorize` event and the page opens a tab.
   */
  openExternal?: (url: string) => Promise<void>;
}

export interface Core {
  /** Validates and runs one contract call; never throws, errors come back as ErrorShape. */
  dispatch(channel: unknown, payload: unknown): Promise<DispatchResult>;
  /** Contract events (validated) for the renderer; `only` names the few a watcher wants (see core/eventHub.ts). */
  onEvent(listener: (event: EventName, payload: unknown) => void, only?: readonly EventName[]): () => void;
  /** Loads the saved servers and starts discovery (everything else was built by `buildCore`). */
  start(): Promise<void>;
  /**
   * Shutting down (serve's SIGTERM): the agent gateway refuses new requests (503 + Retry-After)
   * and this resolves once its calls in flight are answered, or after `graceMs`.
   */
  drainAgents(graceMs: number): Promise<void>;
  /** Closes the registry and the database. Idempotent. */
  close(): Promise<void>;
}
