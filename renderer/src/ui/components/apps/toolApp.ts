/** Which tools bring an app (MCP Apps `_meta.ui.resourceUri`), and the tool view of a recorded call. */
import type { ToolView } from '../../../../../shared/contract.js';
import { useAppStore } from '../../../state/useAppStore.js';

export type ToolWithApp = ToolView & { app: { resourceUri: string } };

export function hasApp(tool: ToolView | undefined): tool is ToolWithApp {
  return typeof tool?.app?.resourceUri === 'string' && tool.app.resourceUri.startsWith('ui://');
}

/** The listed tool a History record names (its server and tool), when it brings an app. */
export function useToolWithApp(serverId: string, toolName: string): ToolWithApp | undefined {
  const tool = useAppStore((s) => s.tools.find((t) => t.serverId === serverId && t.name === toolName));
  return hasApp(tool) ? tool : undefined;
}
