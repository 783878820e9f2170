/**
 * What agents may call: every tool the harness has (the enabled servers' and the local tools),
 * under the gateway's names, filtered by each agent's visibility. Rebuilt when the tools change
 * (`invalidate`), read on every `tools/list` and `tools/call`. MCP Apps: an app-only tool
 * (`_meta.ui.visibility: ["app"]`) is for its server's app and no agent's (neither listed nor
 * callable); a tool's app is listed in its `_meta.ui` (checked: electron/mcp/toolUi.ts).
 * An agent whose visibility asks for own names (`ownNames`) sees each tool under the name its
 * server gave it where no other server it sees offers that name (toolNames.ts `ownNames`: the
 * priority decides a shared name); every `<server>__<tool>` name still reaches its tool.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { AgentVisibility, GatewayToolName } from '../../shared/agents.js';
import type { HarnessToolInfo } from '../harness/application.js';
import { LOCAL_SERVER_ID } from '../security/permissions.js';
import { stableHash } from '../util/stableHash.js';
import { gatewayUiMeta, visibleToModel } from '../mcp/toolUi.js';
import { nameTools, ownNames } from './toolNames.js';

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

/** What an agent that keeps own names sees: its listed tools, and every name that reaches one. */
interface OwnView {
  listed: Entry[];
  byName: Map<string, Entry>;
}

export class GatewayCatalog {
  private entries: Entry[] | undefined;
  private byName = new Map<string, Entry>();
  /** Own-name views by the visibility that sees them (few distinct ones), dropped with the names. */
  private ownViews = new Map<string, OwnView>();

  /** `priorityOf`: a server's priority (Servers → priority; 0 when unknown), which decides a name several servers offer. */
  constructor(
    private readonly listTools: () => HarnessToolInfo[],
    private readonly priorityOf: (serverId: string) => number = () => 0,
  ) {}

  /** The tools changed: the next read rebuilds the names. */
  invalidate(): void {
    this.entries = undefined;
    this.ownViews.clear();
  }

  /** Every tool's gateway name (the Agents view shows renames and collisions). */
  names(): GatewayToolName[] {
    return this.build().map((e) => e.named);
  }

  /** The tools an agent with this visibility sees, as MCP tools. */
  visible(visibility: AgentVisibility): Tool[] {
    return this.listed(visibility).map((e) => e.tool);
  }

  /** One hash of what an agent with this visibility sees: names, schemas, descriptions. */
  fingerprint(visibility: AgentVisibility): string {
    return stableHash(this.listed(visibility).map((e) => e.fingerprint));
  }

  /** The tool an agent means by `name`, if it exists and the agent may see it. */
  resolve(visibility: AgentVisibility, name: string): GatewayToolName | undefined {
    if (visibility.ownNames) return this.ownView(visibility).byName.get(name)?.named;
    this.build();
    const entry = this.byName.get(name);
    return entry && isVisible(visibility, entry.named.serverId) ? entry.named : undefined;
  }

  private listed(visibility: AgentVisibility): Entry[] {
    if (visibility.ownNames) return this.ownView(visibility).listed;
    return this.build().filter((e) => isVisible(visibility, e.named.serverId));
  }

  private ownView(visibility: AgentVisibility): OwnView {
    const entries = this.build();
    const key = stableHash(visibility);
    const kept = this.ownViews.get(key);
    if (kept) return kept;
    const visible = entries.filter((e) => isVisible(visibility, e.named.serverId));
    const names = ownNames(visible.map((e) => ({ named: e.named, priority: this.priorityOf(e.named.serverId) })));
    const listed = visible.map((e): Entry => {
      const name = names.get(`${e.named.serverId}\0${e.named.toolName}`) ?? e.named.name;
      if (name === e.named.name) return e;
      return {
        named: { ...e.named, name },
        tool: { ...e.tool, name },
        fingerprint: stableHash({ own: name, fp: e.fingerprint }),
      };
    });
    // Listed names first; then each `<server>__<tool>` name, which still reaches its tool.
    const byName = new Map<string, Entry>(listed.map((e) => [e.named.name, e]));
    for (const e of visible) if (!byName.has(e.named.name)) byName.set(e.named.name, e);
    const view = { listed, byName };
    this.ownViews.set(key, view);
    return view;
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
