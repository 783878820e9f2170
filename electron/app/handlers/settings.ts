/** `settings.*`: the local tools' folders, the agent gateway's endpoint, the approval timeout. */
import type { Handlers } from '../dispatcher.js';
import type { SettingsService } from '../settingsService.js';

export function settingsHandlers(deps: { settings: SettingsService }): Pick<Handlers, 'settings.get' | 'settings.setRoots' | 'settings.setGateway' | 'settings.setApprovalTimeout'> {
  const { settings } = deps;
  return {
    'settings.get': () => settings.view(),
    'settings.setRoots': ({ roots }) => settings.setRoots(roots),
    'settings.setGateway': (request) => settings.setGateway(request),
    'settings.setApprovalTimeout': ({ seconds }) => settings.setApprovalTimeout(seconds),
  };
}
