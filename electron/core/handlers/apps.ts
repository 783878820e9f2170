/** `apps.*`: MCP Apps — an app's HTML, and the app's own tool calls and reads (electron/apps/appService.ts). */
import type { AppService } from '../../apps/appService.js';
import type { Handlers } from '../dispatcher.js';

type AppChannels = 'apps.load' | 'apps.callTool' | 'apps.readResource';

export function appsHandlers(deps: { apps: AppService }): Pick<Handlers, AppChannels> {
  const { apps } = deps;
  return {
    'apps.load': (request) => apps.load(request),
    'apps.callTool': (request) => apps.callTool(request),
    'apps.readResource': (request) => apps.readResource(request),
  };
}
