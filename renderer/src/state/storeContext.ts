/** The store is created at startup (it needs the bridge client) and handed down by context. */
import { createContext } from 'react';
import type { AppStoreApi } from './store.js';

export const StoreContext = createContext<AppStoreApi | null>(null);
