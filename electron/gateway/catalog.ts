/**
 * What agents may call: every tool the harness has (the enabled servers' and the local tools),
 * under the gateway's names, filtered by each agent's visibility. Rebuilt when the tools change
 * (`invalidate`), read on every `tools/list` and `tools/call`. MCP Apps: an app-only tool
 * (`_meta.ui.visibility: ["app"]`) is for its server's app and no agent's (neither listed nor
 * callable); a tool's app is listed in its `_meta.ui` (checked: electron/apps/toolUi.ts).
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { AgentVisibility, GatewayToolName } from '../../shared/agents.js';
import type { HarnessToolInfo } from '../harness/application.js';
import { LOCAL_SERVER_ID } from '../security/permissions.js';
import { stableHash } from '../util/stableHash.js';
import { gatewayUiMeta, visibleToModel } from '../apps/toolUi.js';
import { nameTools } from './toolNames.js';

interface Entry {
  named: GatewayToolName;
  tool: Tool;
  /** Changes when anything an agent sees of the tool changes (for list_changed). */
  fingerprint: string;
}

export function isVisible(visibility: AgentVisibility, serverId: string): boolean {
  if (serverId === LOCAL_SERVER_ID) return visibility.localTools;
  return visibility.allServers || visibility.serverIds.includes(serverId);
}

function toMcpTool(name: string, info: HarnessToolInfo): Tool {
  return {
    name,
    ...(info.title ? { title: info.title } : {}),
    ...(info.description !== undefined ? { description: info.description } : {}),
    inputSchema: info.inputSchema as Tool['inputSchema'],
    ...(info.outputSchema ? { outputSchema: info.outputSchema as Tool['outputSchema'] } : {}),
    ...(info.annotations ? { annotations: info.annotations as Tool['annotations'] } : {}),
    // Its MCP App, so an agent's own host can render it (its ui:// resource is read through the gateway).
    ...(info.app?.resourceUri !== undefined ? { _meta: gatewayUiMeta(info.app.resourceUri, info.app.visibility) } : {}),
  };
}

export class GatewayCatalog {
  private entries: Entry[] | undefined;
  private byName = new Map<string, Entry>();

  constructor(private readonly listTools: () => HarnessToolInfo[]) {}

  /** The tools changed: the next read rebuilds the names. */
  invalidate(): void {
    this.entries = undefined;
  }

  /** Every tool's gateway name (the Agents view shows renames and collisions). */
  names(): GatewayToolName[] {
    return this.build().map((e) => e.named);
  }

  /** The tools an agent with this visibility sees, as MCP tools. */
  visible(visibility: AgentVisibility): Tool[] {
    return this.build()
      .filter((e) => isVisible(visibility, e.named.serverId))
      .map((e) => e.tool);
  }

  /** One hash of what an agent with this visibility sees: names, schemas, descriptions. */
  fingerprint(visibility: AgentVisibility): string {
    return stableHash(
      this.build()
        .filter((e) => isVisible(visibility, e.named.serverId))
        .map((e) => e.fingerprint),
    );
  }

  /** The tool an agent means by `name`, if it exists and the agent may see it. */
  resolve(visibility: AgentVisibility, name: string): GatewayToolName | undefined {
    this.build();
    const entry = this.byName.get(name);
    return entry && isVisible(visibility, entry.named.serverId) ? entry.named : undefined;
  }

  private build(): Entry[] {
    if (this.entries) return this.entries;
    // App-only tools (MCP Apps `visibility: ["app"]`) are for their server's app: no agent sees or calls them.
    const infos = this.listTools().filter((info) => visibleToModel(info.app));
    const byRef = new Map(infos.map((info) => [`${info.serverId}\0${info.name}`, info]));
    const entries = nameTools(infos.map((info) => ({ serverId: info.serverId, toolName: info.name }))).map(
      (named): Entry => {
        const info = byRef.get(`${named.serverId}\0${named.toolName}`) as HarnessToolInfo;
        const tool = toMcpTool(named.name, info);
        return {
          named,
          tool,
          fingerprint: stableHash({
            name: named.name,
            fp: info.schemaFingerprint,
            title: info.title ?? null,
            description: info.description ?? null,
            app: info.app ?? null,
          }),
        };
      },
    );
    this.entries = entries;
    this.byName = new Map(entries.map((e) => [e.named.name, e]));
    return entries;
  }
}
