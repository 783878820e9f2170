/**
 * Permissions: every tool's level and why, per-server trust, and the stored rules (per-tool
 * levels and "always allow" grants). Loaded with 'permissions.get'; every change answers with the
 * whole view, and 'permissions.changed' / 'tools.changed' reload it once it has been loaded.
 */
import type { PermissionsView } from '../../../../shared/contract.js';
import { messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator } from '../types.js';

export type LevelChoice = 'ALLOW' | 'ASK' | 'DENY' | 'default';

export interface PermissionsSlice {
  permissions: PermissionsView | undefined;
  permissionsLoad: 'idle' | 'loading' | 'ready' | 'error';
  permissionsError: string | undefined;
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

export const createPermissionsSlice: ClientSliceCreator<PermissionsSlice> = (client) => (set, get) => {
  async function change(busyKey: string, run: () => Promise<PermissionsView>, failure: string): Promise<void> {
    set({ permissionsBusy: { ...get().permissionsBusy, [busyKey]: true } }, false, 'permissions/change');
    try {
      const permissions = await run();
      set({ permissions, permissionsLoad: 'ready', permissionsError: undefined }, false, 'permissions/changed');
    } catch (error) {
      get().notify('error', `${failure}: ${messageOf(error)}`);
    } finally {
      const { [busyKey]: _done, ...rest } = get().permissionsBusy;
      set({ permissionsBusy: rest }, false, 'permissions/changeDone');
    }
  }

  return {
    permissions: undefined,
    permissionsLoad: 'idle',
    permissionsError: undefined,
    permissionsBusy: {},

    async loadPermissions() {
      if (get().permissionsLoad !== 'ready') set({ permissionsLoad: 'loading' }, false, 'permissions/load');
      try {
        const permissions = await client.call('permissions.get', {});
        set({ permissions, permissionsLoad: 'ready', permissionsError: undefined }, false, 'permissions/loaded');
      } catch (error) {
        set({ permissionsLoad: 'error', permissionsError: messageOf(error) }, false, 'permissions/loadError');
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
      return change(`server:${serverId}`, () => client.call('permissions.setServerTrust', { serverId, trusted }), `Could not change the trust of ${serverId}`);
    },

    removeRule(ruleId) {
      return change(`rule:${ruleId}`, () => client.call('permissions.removeRule', { ruleId }), 'Could not revoke the rule');
    },

    revokeSessionGrant(serverId, toolName) {
      return change(`grant:${serverId}:${toolName}`, () => client.call('permissions.revokeSessionGrant', { serverId, toolName }), `Could not revoke the session grant of ${toolName}`);
    },

    permissionsFocus: undefined,
    permissionsFocusSeq: 0,
    openPermissionsFor(serverId, toolName) {
      set({ permissionsFocus: { serverId, toolName }, permissionsFocusSeq: get().permissionsFocusSeq + 1 }, false, 'permissions/focus');
      get().navigate('permissions');
    },
    clearPermissionsFocus() {
      set({ permissionsFocus: undefined }, false, 'permissions/focusDone');
    },

    clearPermissions() {
      set({ permissions: undefined, permissionsLoad: 'idle', permissionsError: undefined, permissionsBusy: {} }, false, 'permissions/clear');
    },
  };
};
