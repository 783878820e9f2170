/**
 * MCP Apps: what an app's frame asks of main — its HTML (`apps.load`), and the app's own
 * `tools/call` and `resources/read`, which main runs through the pipeline as "<server>'s app"
 * (permission, approval naming the app, checkpoint, trace). No state: each frame keeps its own.
 */
import type { AppReadResult, AppResourceView, CallOutcome } from '../../../../shared/contract.js';
import type { ClientSliceCreator } from '../types.js';

/** The call an app shows (`apps.load`'s forCall): a History record's session and callId, or the GUI's own call. */
export interface AppPageCall {
  sessionId?: string;
  callId: string;
}
import { newCallId } from './toolsSlice.js';

export interface AppsSlice {
  /**
   * The app's HTML and what its resource asks of the host; `forCall`: the call whose result it shows
   * (its decision answers for the page where the rules would ask). Throws the BridgeError.
   */
  loadApp(serverId: string, resourceUri: string, forCall?: AppPageCall): Promise<AppResourceView>;
  /** The app of `toolName` (of `serverId`) calls `name` with a fresh callId. Throws the BridgeError. */
  callAppTool(
    serverId: string,
    toolName: string,
    name: string,
    args: Record<string, unknown>,
    instanceId?: string,
  ): Promise<CallOutcome>;
  /** The app of `toolName` reads `uri` of its own server. Throws the BridgeError. */
  readAppResource(serverId: string, toolName: string, uri: string): Promise<AppReadResult>;
}

export const createAppsSlice: ClientSliceCreator<AppsSlice> = (client) => () => ({
  loadApp(serverId, resourceUri, forCall) {
    return client.call('apps.load', { serverId, resourceUri, ...(forCall ? { forCall } : {}) });
  },
  callAppTool(serverId, toolName, name, args, instanceId) {
    return client.call('apps.callTool', {
      serverId,
      toolName,
      name,
      args,
      callId: newCallId(),
      ...(instanceId !== undefined ? { instanceId } : {}),
    });
  },
  readAppResource(serverId, toolName, uri) {
    return client.call('apps.readResource', { serverId, toolName, uri });
  },
});
