/** `apps.*`: MCP Apps — an app's HTML, and the app's own tool calls and reads (electron/apps/). */
import type { Handlers } from '../dispatcher.js';
import { AppError } from '../errors.js';

type AppChannels = 'apps.load' | 'apps.callTool' | 'apps.readResource';

export function appsHandlers(): Pick<Handlers, AppChannels> {
  const notYet = (): never => {
    throw new AppError('not_supported', 'MCP Apps are not served by this build yet.');
  };
  return { 'apps.load': notYet, 'apps.callTool': notYet, 'apps.readResource': notYet };
}
