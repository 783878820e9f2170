/** `permissions.*`: per-tool levels, server trust and the stored rules. */
import type { Handlers } from '../dispatcher.js';
import type { PermissionService } from '../permissionService.js';

type PermissionChannels =
  | 'permissions.get'
  | 'permissions.setToolLevel'
  | 'permissions.setServerTrust'
  | 'permissions.removeRule'
  | 'permissions.revokeSessionGrant'
  | 'permissions.setDenyFlagged';

export function permissionHandlers(deps: { permissions: PermissionService }): Pick<Handlers, PermissionChannels> {
  const { permissions } = deps;
  return {
    'permissions.get': () => permissions.view(),
    'permissions.setToolLevel': (request) => permissions.setToolLevel(request),
    'permissions.setServerTrust': ({ serverId, trusted }) => permissions.setServerTrust(serverId, trusted),
    'permissions.removeRule': ({ ruleId }) => permissions.removeRule(ruleId),
    'permissions.revokeSessionGrant': (request) => permissions.revokeSessionGrant(request),
    'permissions.setDenyFlagged': ({ deny }) => permissions.setDenyFlagged(deny),
  };
}
