/**
 * Settings the GUI edits (loaded with 'settings.get'): the local tools' folders ('settings.setRoots'),
 * the agent gateway ('settings.setGateway'), the agents' idle window ('settings.setAgentIdle'), the approval timeout ('settings.setApprovalTimeout')
 * run_command's sandbox lists ('settings.setCommandSandbox')
 * and, in the desktop app, whether closing the window keeps it running ('settings.setKeepRunning').
 * 'settings.changed' keeps them current.
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
  /** Turns the agent gateway on or off, or moves its port; resolves to the error when refused. */
  setGateway(enabled: boolean, port: number): Promise<ErrorShape | undefined>;
  /** How long an agent's session or client may go unseen before it ends; resolves to the error when refused. */
  setAgentIdle(minutes: number): Promise<ErrorShape | undefined>;
  setApprovalTimeout(seconds: number): Promise<ErrorShape | undefined>;
  /** Desktop app: closing the window keeps it running in the tray / dock; resolves to the error when refused. */
  setKeepRunning(keepRunning: boolean): Promise<ErrorShape | undefined>;
  /** What run_command's sandbox lets every command read, write and reach; resolves to the error when refused. */
  setCommandSandbox(lists: SettingsView['commandSandbox']): Promise<ErrorShape | undefined>;
  /** A 'settings.changed' event: the whole view. */
  applySettings(settings: SettingsView): void;
}

function errorShapeOf(error: unknown): ErrorShape {
  return error instanceof BridgeError ? error.toShape() : { code: 'internal', message: messageOf(error) };
}

export const createSettingsSlice: ClientSliceCreator<SettingsSlice> = (client) => (set) => {
  /** One save: the whole view back, or the refusal (with its field errors) for the form. */
  async function save(run: () => Promise<SettingsView>): Promise<ErrorShape | undefined> {
    set({ settingsBusy: true }, false, 'settings/saving');
    try {
      set({ settings: await run(), settingsError: undefined }, false, 'settings/saved');
      return undefined;
    } catch (error) {
      return errorShapeOf(error);
    } finally {
      set({ settingsBusy: false }, false, 'settings/savedDone');
    }
  }

  return {
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

    setRoots(roots) {
      return save(() => client.call('settings.setRoots', { roots }));
    },

    setGateway(enabled, port) {
      return save(() => client.call('settings.setGateway', { enabled, port }));
    },

    setAgentIdle(minutes) {
      return save(() => client.call('settings.setAgentIdle', { minutes }));
    },

    setApprovalTimeout(seconds) {
      return save(() => client.call('settings.setApprovalTimeout', { seconds }));
    },

    setKeepRunning(keepRunning) {
      return save(() => client.call('settings.setKeepRunning', { keepRunning }));
    },

    setCommandSandbox(lists) {
      return save(() => client.call('settings.setCommandSandbox', lists));
    },

    applySettings: (settings) => set({ settings }, false, 'settings/changed'),
  };
};
