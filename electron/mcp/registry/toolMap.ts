/**
 * The tool map: each server's tool list (and whether it came from the schema cache), one winner
 * per name by priority (ties: server id order), and the conflicts. No automatic failover to the
 * next server: a conflict is listed instead.
 *
 * Every list is kept with known secret values redacted (descriptorRedaction.ts), and redacted
 * again when a secret became known since: whoever reads the map gets redacted descriptors.
 */
import type { DescriptorRedaction } from '../descriptorRedaction.js';
import type { ToolDescriptor } from '../types.js';
import type { RegisteredTool, ToolConflict } from './types.js';

export interface ServerTools {
  tools: ToolDescriptor[];
  /** Listed from the schema cache (a warm start), not from the server in this session. */
  fromCache: boolean;
}

export class ToolMap {
  private lists = new Map<string, ServerTools>();
  /** The redaction's version the kept lists were last redacted at. */
  private redactedAt = 0;

  /** `priorityOf`: a server's current priority (0 for one that is gone). */
  constructor(
    private readonly priorityOf: (serverId: string) => number,
    private readonly redaction?: DescriptorRedaction,
  ) {}

  /** The kept lists, redacted again first if a secret became known since. */
  private get byServer(): Map<string, ServerTools> {
    const version = this.redaction?.version ?? 0;
    if (this.redaction && version !== this.redactedAt) {
      for (const [serverId, entry] of this.lists) this.lists.set(serverId, this.redacted(entry));
      this.redactedAt = version;
    }
    return this.lists;
  }

  private redacted(entry: ServerTools): ServerTools {
    const tools = this.redaction ? this.redaction.tools(entry.tools) : entry.tools;
    return tools === entry.tools ? entry : { ...entry, tools };
  }

  get(serverId: string): ServerTools | undefined {
    return this.byServer.get(serverId);
  }

  has(serverId: string): boolean {
    return this.byServer.has(serverId);
  }

  /** Sets (or with undefined, drops) one server's list; says whether the map changed. */
  set(serverId: string, entry: ServerTools | undefined): boolean {
    const had = this.byServer.has(serverId);
    if (entry) this.lists.set(serverId, this.redacted(entry));
    else this.lists.delete(serverId);
    return entry !== undefined || had;
  }

  /** Replaces every list at once (a discovery's outcome): a tool that went away disappears. */
  replaceAll(next: Map<string, ServerTools>): void {
    this.lists = new Map([...next].map(([serverId, entry]) => [serverId, this.redacted(entry)]));
  }

  offers(serverId: string, name: string): boolean {
    return this.byServer.get(serverId)?.tools.some((t) => t.name === name) ?? false;
  }

  /** Every tool offered by every server, highest priority first within a name. */
  allTools(): RegisteredTool[] {
    const out: RegisteredTool[] = [];
    for (const [serverId, { tools }] of this.byServer) {
      const priority = this.priorityOf(serverId);
      for (const tool of tools) out.push({ name: tool.name, serverId, priority, tool });
    }
    return out.sort(
      (a, b) => a.name.localeCompare(b.name) || b.priority - a.priority || a.serverId.localeCompare(b.serverId),
    );
  }

  /** One tool per name: the one a call by name reaches. */
  tools(): RegisteredTool[] {
    const winners = new Map<string, RegisteredTool>();
    for (const tool of this.allTools()) if (!winners.has(tool.name)) winners.set(tool.name, tool);
    return [...winners.values()];
  }

  conflicts(): ToolConflict[] {
    const byName = new Map<string, RegisteredTool[]>();
    for (const tool of this.allTools()) byName.set(tool.name, [...(byName.get(tool.name) ?? []), tool]);
    const out: ToolConflict[] = [];
    for (const [name, offers] of byName) {
      if (offers.length < 2 || !offers[0]) continue;
      out.push({
        name,
        winner: offers[0].serverId,
        servers: offers.map((o) => ({ serverId: o.serverId, priority: o.priority })),
      });
    }
    return out;
  }

  /**
   * The tool a call by name reaches, or undefined: the first of `allTools()` with that name,
   * found in one pass over the lists (a call resolves its tool; it need not sort every server's).
   */
  resolve(name: string): RegisteredTool | undefined {
    let best: RegisteredTool | undefined;
    for (const [serverId, { tools }] of this.byServer) {
      const tool = tools.find((t) => t.name === name);
      if (!tool) continue;
      const priority = this.priorityOf(serverId);
      if (
        !best ||
        priority > best.priority ||
        (priority === best.priority && serverId.localeCompare(best.serverId) < 0)
      )
        best = { name, serverId, priority, tool };
    }
    return best;
  }

  /** The tool `name` of server `serverId`, or undefined. */
  find(serverId: string, name: string): RegisteredTool | undefined {
    const tool = this.byServer.get(serverId)?.tools.find((t) => t.name === name);
    return tool ? { name, serverId, priority: this.priorityOf(serverId), tool } : undefined;
  }
}
