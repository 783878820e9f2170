/** Reads a slice of the store; keep selectors small (one field or a derived primitive). */
import { useContext } from 'react';
import { useStore } from 'zustand';
import type { AppStore } from './types.js';
import { StoreContext } from './storeContext.js';

export function useAppStore<T>(selector: (state: AppStore) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore must be used inside <StoreContext.Provider>');
  return useStore(store, selector);
}
