/**
 * Permissions: every tool's level and why, per-server trust, and the stored rules (per-tool
 * levels and "always allow" grants). Loaded with 'permissions.get'; every change answers with the
 * whole view, and 'permissions.changed' / 'tools.changed' reload it once it has been loaded.
 */
import type { PermissionsView } from '../../../../shared/contract.js';
import { messageOf } from '../../bridge/index.js';
import { loadable } from '../loadable.js';
import type { Loadable } from '../loadable.js';
import type { ClientSliceCreator, StateOf } from '../types.js';

export type LevelChoice = 'ALLOW' | 'ASK' | 'DENY' | 'default';

export interface PermissionsSlice extends Loadable<'permissions'> {
  permissions: PermissionsView | undefined;
  /** What is being changed, by key (`tool:<server>:<name>`, `server:<id>`, `rule:<id>`). */
  permissionsBusy: Record<string, true>;

  loadPermissions(): Promise<void>;
  /** Reloads only when the view was loaded before (events should not load what nobody opened). */
  refreshPermissions(): void;
  setToolLevel(serverId: string, toolName: string, level: LevelChoice): Promise<void>;
  setServerTrust(serverId: string, trusted: boolean): Promise<void>;
  removeRule(ruleId: string): Promise<void>;
  /** Revokes this session's "allow for this session" grant for one tool. */
  revokeSessionGrant(serverId: string, toolName: string): Promise<void>;
  /** Adds or removes the rule that denies every tool with poisoning flags. */
  setDenyFlagged(deny: boolean): Promise<void>;
  clearPermissions(): void;
  /** The tool row Permissions should land on (scrolled into view and focused), once. */
  permissionsFocus: { serverId: string; toolName: string } | undefined;
  /** Counts "land on a tool" requests (the view starts unfiltered for each). */
  permissionsFocusSeq: number;
  /** Opens Permissions on one tool's row ("Change", "Open Permissions"). */
  openPermissionsFor(serverId: string, toolName: string): void;
  /** The row was shown: forget the target. */
  clearPermissionsFocus(): void;
}

const PERMISSIONS = loadable('permissions');
const INITIAL: StateOf<PermissionsSlice> = {
  permissions: undefined,
  ...PERMISSIONS.idle,
  permissionsBusy: {},
  permissionsFocus: undefined,
  permissionsFocusSeq: 0,
};
/** What `clearPermissions` resets: the view, not a focus asked for from another view. */
const { permissionsFocus: _focus, permissionsFocusSeq: _focusSeq, ...CLEARED } = INITIAL;

export const createPermissionsSlice: ClientSliceCreator<PermissionsSlice> = (client) => (set, get) => {
  async function change(busyKey: string, run: () => Promise<PermissionsView>, failure: string): Promise<void> {
    set({ permissionsBusy: { ...get().permissionsBusy, [busyKey]: true } }, false, 'permissions/change');
    try {
      const permissions = await run();
      set({ permissions, ...PERMISSIONS.ready }, false, 'permissions/changed');
    } catch (error) {
      get().notify('error', `${failure}: ${messageOf(error)}`);
    } finally {
      const { [busyKey]: _done, ...rest } = get().permissionsBusy;
      set({ permissionsBusy: rest }, false, 'permissions/changeDone');
    }
  }

  return {
    ...INITIAL,

    async loadPermissions() {
      if (get().permissionsLoad !== 'ready') set(PERMISSIONS.loading, false, 'permissions/load');
      try {
        const permissions = await client.call('permissions.get', {});
        set({ permissions, ...PERMISSIONS.ready }, false, 'permissions/loaded');
      } catch (error) {
        set(PERMISSIONS.failed(error), false, 'permissions/loadError');
      }
    },

    refreshPermissions() {
      if (get().permissionsLoad !== 'idle') void get().loadPermissions();
    },

    setToolLevel(serverId, toolName, level) {
      return change(
        `tool:${serverId}:${toolName}`,
        () => client.call('permissions.setToolLevel', { serverId, toolName, level }),
        `Could not change the level of ${toolName}`,
      );
    },

    setServerTrust(serverId, trusted) {
      return change(
        `server:${serverId}`,
        () => client.call('permissions.setServerTrust', { serverId, trusted }),
        `Could not change the trust of ${serverId}`,
      );
    },

    removeRule(ruleId) {
      return change(
        `rule:${ruleId}`,
        () => client.call('permissions.removeRule', { ruleId }),
        'Could not revoke the rule',
      );
    },

    revokeSessionGrant(serverId, toolName) {
      return change(
        `grant:${serverId}:${toolName}`,
        () => client.call('permissions.revokeSessionGrant', { serverId, toolName }),
        `Could not revoke the session grant of ${toolName}`,
      );
    },

    setDenyFlagged(deny) {
      return change(
        'deny-flagged',
        () => client.call('permissions.setDenyFlagged', { deny }),
        'Could not change the rule for flagged tools',
      );
    },

    openPermissionsFor(serverId, toolName) {
      set(
        { permissionsFocus: { serverId, toolName }, permissionsFocusSeq: get().permissionsFocusSeq + 1 },
        false,
        'permissions/focus',
      );
      get().navigate('permissions');
    },
    clearPermissionsFocus() {
      set({ permissionsFocus: undefined }, false, 'permissions/focusDone');
    },

    clearPermissions() {
      set(CLEARED, false, 'permissions/clear');
    },
  };
};
