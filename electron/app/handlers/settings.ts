/** `settings.*`: the folders the local tools may use (Settings → Folders). */
import type { Handlers } from '../dispatcher.js';
import type { SettingsService } from '../settingsService.js';

export function settingsHandlers(deps: { settings: SettingsService }): Pick<Handlers, 'settings.get' | 'settings.setRoots'> {
  const { settings } = deps;
  return {
    'settings.get': () => settings.view(),
    'settings.setRoots': ({ roots }) => settings.setRoots(roots),
  };
}
