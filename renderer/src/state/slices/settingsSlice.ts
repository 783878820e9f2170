/**
 * Settings the GUI edits: the local tools' folders (loaded with 'settings.get', set with
 * 'settings.setRoots') and, in the desktop app, whether closing the window keeps it running
 * ('settings.setKeepRunning'). 'settings.changed' keeps them current.
 */
import type { ErrorShape, SettingsView } from '../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator } from '../types.js';

export interface SettingsSlice {
  settings: SettingsView | undefined;
  settingsError: string | undefined;
  settingsBusy: boolean;
  loadSettings(): Promise<void>;
  /** Sets the extra folders (the workspace is not listed); resolves to the error when refused. */
  setRoots(roots: string[]): Promise<ErrorShape | undefined>;
  /** Desktop app: closing the window keeps it running in the tray / dock; resolves to the error when refused. */
  setKeepRunning(keepRunning: boolean): Promise<ErrorShape | undefined>;
  /** A 'settings.changed' event: the whole view. */
  applySettings(settings: SettingsView): void;
}

function errorShapeOf(error: unknown): ErrorShape {
  return error instanceof BridgeError ? error.toShape() : { code: 'internal', message: messageOf(error) };
}

export const createSettingsSlice: ClientSliceCreator<SettingsSlice> = (client) => (set) => ({
  settings: undefined,
  settingsError: undefined,
  settingsBusy: false,

  async loadSettings() {
    try {
      set({ settings: await client.call('settings.get', {}), settingsError: undefined }, false, 'settings/loaded');
    } catch (error) {
      set({ settingsError: messageOf(error) }, false, 'settings/loadError');
    }
  },

  async setRoots(roots) {
    set({ settingsBusy: true }, false, 'settings/saving');
    try {
      set({ settings: await client.call('settings.setRoots', { roots }), settingsError: undefined }, false, 'settings/saved');
      return undefined;
    } catch (error) {
      return errorShapeOf(error);
    } finally {
      set({ settingsBusy: false }, false, 'settings/savedDone');
    }
  },

  async setKeepRunning(keepRunning) {
    try {
      set({ settings: await client.call('settings.setKeepRunning', { keepRunning }), settingsError: undefined }, false, 'settings/keepRunning');
      return undefined;
    } catch (error) {
      return errorShapeOf(error);
    }
  },

  applySettings: (settings) => set({ settings }, false, 'settings/changed'),
});
