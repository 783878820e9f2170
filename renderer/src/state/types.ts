/**
 * The store's shape: one zustand store combined from typed slices (the zustand "slices" pattern).
 * Each slice is a StateCreator over the whole store, so actions can read other slices; middleware
 * is applied once, on the combined store (see store.ts). Later slices (tools, approvals,
 * permissions, traces, history) are added to `AppStore` and to `createAppStore`.
 */
import type { ObservabilitySlice } from './slices/observabilitySlice.js';
import type { PeopleSlice } from './slices/peopleSlice.js';
import type { StateCreator } from 'zustand';
import type { BridgeClient } from '../bridge/index.js';
import type { AppSlice } from './slices/appSlice.js';
import type { NavigationSlice } from './slices/navigationSlice.js';
import type { ServersSlice } from './slices/serversSlice.js';
import type { ToolsSlice } from './slices/toolsSlice.js';
import type { ApprovalsSlice } from './slices/approvalsSlice.js';
import type { PermissionsSlice } from './slices/permissionsSlice.js';
import type { TracesSlice } from './slices/tracesSlice.js';
import type { HistorySlice } from './slices/historySlice.js';
import type { ImportSlice } from './slices/importSlice.js';
import type { SettingsSlice } from './slices/settingsSlice.js';
import type { ServerRequestsSlice } from './slices/serverRequestsSlice.js';
import type { ServerFeaturesSlice } from './slices/serverFeaturesSlice.js';
import type { AgentsSlice } from './slices/agentsSlice.js';
import type { RunsSlice } from './slices/runsSlice.js';
import type { AppsSlice } from './slices/appsSlice.js';
import type { CatalogSlice } from './slices/catalogSlice.js';
import type { SandboxSlice } from './slices/sandboxSlice.js';

export type AppStore = AppSlice &
  ServersSlice &
  NavigationSlice &
  ToolsSlice &
  ApprovalsSlice &
  PermissionsSlice &
  TracesSlice &
  HistorySlice &
  ImportSlice &
  SettingsSlice &
  ServerRequestsSlice &
  ServerFeaturesSlice &
  AgentsSlice &
  RunsSlice &
  AppsSlice &
  CatalogSlice &
  SandboxSlice &
  ObservabilitySlice &
  PeopleSlice;

/** The middleware stack of the combined store, which every slice sees in its `set`. */
type StoreMiddlewares = [['zustand/devtools', never]];

export type SliceCreator<Slice> = StateCreator<AppStore, StoreMiddlewares, [], Slice>;

/** Slices that talk to main get the bridge client injected (no module-level singleton). */
export type ClientSliceCreator<Slice> = (client: BridgeClient) => SliceCreator<Slice>;

/** A slice's data without its actions: the shape of its `INITIAL` state. */
export type StateOf<Slice> = {
  [K in keyof Slice as Slice[K] extends (...args: never[]) => unknown ? never : K]: Slice[K];
};
