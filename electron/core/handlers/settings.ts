/** `settings.*`: the local tools' folders, the agent gateway's endpoint and idle window, the approval timeout, the desktop app's background setting. */
import type { EventName, EventOf, SettingsView } from '../../../shared/contract.js';
import type { Handlers } from '../dispatcher.js';
import type { SettingsService } from '../settingsService.js';

export function settingsHandlers(deps: {
  settings: SettingsService;
  /** Told every change, so the other side (the desktop shell, another page) follows it. */
  emit?: <E extends EventName>(event: E, payload: EventOf<E>) => void;
}): Pick<
  Handlers,
  | 'settings.get'
  | 'settings.setRoots'
  | 'settings.setGateway'
  | 'settings.setAgentIdle'
  | 'settings.setApprovalTimeout'
  | 'settings.setKeepRunning'
  | 'settings.setCommandSandbox'
> {
  const { settings } = deps;
  const changed = (view: SettingsView): SettingsView => {
    deps.emit?.('settings.changed', { settings: view });
    return view;
  };
  return {
    'settings.get': () => settings.view(),
    'settings.setRoots': ({ roots }) => changed(settings.setRoots(roots)),
    'settings.setGateway': (request) => changed(settings.setGateway(request)),
    'settings.setAgentIdle': ({ minutes }) => changed(settings.setAgentIdle(minutes)),
    'settings.setApprovalTimeout': ({ seconds }) => changed(settings.setApprovalTimeout(seconds)),
    'settings.setKeepRunning': ({ keepRunning }) => changed(settings.setKeepRunningOnClose(keepRunning)),
    'settings.setCommandSandbox': (request) => changed(settings.setCommandSandbox(request)),
  };
}
