/**
 * The app core as the two hosts (the Electron shell and the browser-mode host) see it: a
 * dispatcher for the IPC contract, a stream of contract events, and a lifecycle.
 */
import type { DispatchResult } from '../../shared/bridge.js';
import type { EventName, FileDamagedWarning } from '../../shared/contract.js';
import type { SecretStore } from '../secrets/resolver.js';

export interface SecretBackendInfo {
  kind: 'safeStorage' | 'keyring' | 'file';
  /** False when the OS does not encrypt the secrets (Linux basic_text, or the file fallback). */
  secure: boolean;
  warning?: string;
}

/** A secret store that can say how safe it is (shown in the GUI). */
export interface DescribedSecretStore extends SecretStore {
  describe(): SecretBackendInfo;
  /** Reads the store's file now (when it has one) and says which damaged files it moved aside. */
  damagedFiles?(): Promise<readonly FileDamagedWarning[]>;
}

/**
 * The configuration store: the subset of `conf` / `electron-store` the app uses (both have
 * this API), so Electron binds electron-store and browser mode binds conf.
 */
export interface ConfigStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  /** The file it writes (for tests and diagnostics). */
  readonly path: string;
  /** A damaged file found when it was opened (moved aside), for the GUI. */
  readonly damaged?: readonly FileDamagedWarning[];
}

export interface AppCoreOptions {
  mode: 'electron' | 'browser';
  /** Per-user data folder: the database, the tool cache, the permission rules. */
  dataDir: string;
  /**
   * Where the local tools read, write and run commands (electron/web/dataDir.ts
   * defaultWorkspaceDir() in both hosts). Must not overlap the data folder; the core refuses to
   * start otherwise.
   */
  workspaceDir: string;
  secrets: DescribedSecretStore;
  config: ConfigStore;
  version: string;
  /** Problems the host met before the core started (a corrupt store moved aside, …), for the GUI. */
  warnings?: string[];
}

export interface AppCore {
  /** Validates and runs one contract call; never throws, errors come back as ErrorShape. */
  dispatch(channel: unknown, payload: unknown): Promise<DispatchResult>;
  /** Contract events (validated) for the renderer. */
  onEvent(listener: (event: EventName, payload: unknown) => void): () => void;
  /** Loads the saved servers and starts discovery (everything else was built by `buildAppCore`). */
  start(): Promise<void>;
  /** Closes the registry and the database. Idempotent. */
  close(): Promise<void>;
}
