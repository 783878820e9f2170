/**
 * The tools a run's model sees: the pipeline's tool list cut down by the run's visibility (the
 * gateway agents' model: every server's tools or the listed servers', the app's local tools only
 * when allowed), in the registry's shape the LLM adapter converts. Each model-facing name maps
 * back to its tool and server, so a call reaches exactly the tool the model was shown (a shadowed
 * MCP tool included: the call names its server).
 */
import type { AgentVisibility } from '../../shared/agents.js';
import type { HarnessToolInfo } from '../harness/application.js';
import { visibleToModel } from '../mcp/toolUi.js';
import { toOpenAITools } from '../mcp/llmAdapter.js';
import type { RegisteredTool } from '../mcp/registry.js';

export interface RunToolSet {
  tools: RegisteredTool[];
  /** Model-facing name → the tool it stands for (the same names in both providers' shapes). */
  route: Map<string, { toolName: string; serverId: string }>;
}

export function visibleTools(all: readonly HarnessToolInfo[], visibility: AgentVisibility): RunToolSet {
  const servers = new Set(visibility.serverIds);
  const tools = all
    .filter((tool) =>
      tool.source === 'local' ? visibility.localTools : visibility.allServers || servers.has(tool.serverId),
    )
    // An MCP App's app-only tool is for its app, never the model (`_meta.ui.visibility`).
    .filter((tool) => visibleToModel(tool.app))
    .map<RegisteredTool>((tool) => ({
      name: tool.name,
      serverId: tool.serverId,
      priority: 0,
      tool: {
        name: tool.name,
        ...(tool.title ? { title: tool.title } : {}),
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        inputSchema: tool.inputSchema as RegisteredTool['tool']['inputSchema'],
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
    }));
  const route = new Map(
    [...toOpenAITools(tools).toolFor].map(([name, tool]) => [name, { toolName: tool.name, serverId: tool.serverId }]),
  );
  return { tools, route };
}
