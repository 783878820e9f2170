/** The one store: slices combined, middleware (devtools in development) applied once, here. */
import { devtools } from 'zustand/middleware';
import { createStore } from 'zustand/vanilla';
import type { BridgeClient } from '../bridge/index.js';
import { createAppSlice } from './slices/appSlice.js';
import { createNavigationSlice } from './slices/navigationSlice.js';
import { createServersSlice } from './slices/serversSlice.js';
import { createToolsSlice } from './slices/toolsSlice.js';
import { createApprovalsSlice } from './slices/approvalsSlice.js';
import { createPermissionsSlice } from './slices/permissionsSlice.js';
import { createTracesSlice } from './slices/tracesSlice.js';
import { createHistorySlice } from './slices/historySlice.js';
import { createImportSlice } from './slices/importSlice.js';
import { createSettingsSlice } from './slices/settingsSlice.js';
import { createServerRequestsSlice } from './slices/serverRequestsSlice.js';
import { createServerFeaturesSlice } from './slices/serverFeaturesSlice.js';
import { createAgentsSlice } from './slices/agentsSlice.js';
import { createRunsSlice } from './slices/runsSlice.js';
import { createAppsSlice } from './slices/appsSlice.js';
import { createCatalogSlice } from './slices/catalogSlice.js';
import { createSandboxSlice } from './slices/sandboxSlice.js';
import { createObservabilitySlice } from './slices/observabilitySlice.js';
import { createPeopleSlice } from './slices/peopleSlice.js';
import type { AppStore } from './types.js';

export function createAppStore(client: BridgeClient) {
  return createStore<AppStore>()(
    devtools(
      (...a) => ({
        ...createAppSlice(client)(...a),
        ...createServersSlice(client)(...a),
        ...createNavigationSlice(...a),
        ...createToolsSlice(client)(...a),
        ...createApprovalsSlice(client)(...a),
        ...createPermissionsSlice(client)(...a),
        ...createTracesSlice(client)(...a),
        ...createHistorySlice(client)(...a),
        ...createImportSlice(client)(...a),
        ...createSettingsSlice(client)(...a),
        ...createServerRequestsSlice(client)(...a),
        ...createServerFeaturesSlice(client)(...a),
        ...createAgentsSlice(client)(...a),
        ...createRunsSlice(client)(...a),
        ...createAppsSlice(client)(...a),
        ...createCatalogSlice(client)(...a),
        ...createSandboxSlice(client)(...a),
        ...createObservabilitySlice(client)(...a),
        ...createPeopleSlice(client)(...a),
      }),
      { name: 'MiniHarness', enabled: import.meta.env.DEV },
    ),
  );
}

export type AppStoreApi = ReturnType<typeof createAppStore>;
