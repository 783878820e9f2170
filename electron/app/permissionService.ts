/**
 * The Permissions view: each tool's current level and why, per-server trust, and the stored
 * rules — per-tool levels set here, and "always allow" grants from approval dialogs (bound to
 * the tool's fingerprint, shown as stale when the tool changed since).
 */
import type { PermissionsView, RequestOf } from '../../shared/contract.js';
import type { HarnessApplication } from '../harness/application.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import type { PermissionDecisionEngine } from '../security/permissions.js';
import { LOCAL_SERVER_ID } from '../security/permissions.js';

/** Per-tool rules set in the Permissions view have a stable id, so setting again replaces. */
export function toolRuleId(serverId: string, toolName: string): string {
  return `tool:${serverId}:${toolName}`;
}

export class PermissionService {
  constructor(
    private readonly engine: PermissionDecisionEngine,
    private readonly harness: HarnessApplication,
    private readonly registry: MCPToolRegistry,
    private readonly setTrusted: (serverId: string, trusted: boolean) => Promise<void>,
    private readonly changed: () => void,
  ) {}

  view(): PermissionsView {
    const engine = this.engine;
    const rules = engine.listRules();
    const ruleIds = new Set(rules.map((r) => r.id));
    const tools = this.harness.listTools();
    const fingerprints = new Map(tools.map((t) => [`${t.serverId}\0${t.name}`, t.schemaFingerprint]));
    return {
      tools: tools.map((tool) => {
        const trusted = tool.serverId === LOCAL_SERVER_ID || this.registry.server(tool.serverId)?.trusted === true;
        const decision = engine.explain({
          toolName: tool.name,
          serverId: tool.serverId,
          args: {},
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
          serverTrusted: trusted,
          schemaFingerprint: tool.schemaFingerprint,
        });
        const id = toolRuleId(tool.serverId, tool.name);
        return {
          toolName: tool.name,
          serverId: tool.serverId,
          level: decision.level,
          reason: { kind: decision.reason.kind, detail: decision.reason.detail, ...(decision.reason.ruleId ? { ruleId: decision.reason.ruleId } : {}) },
          ...(ruleIds.has(id) ? { toolRuleId: id } : {}),
        };
      }),
      servers: this.registry.servers().map((s) => ({ serverId: s.id, name: s.name, trusted: s.trusted })),
      rules: rules.map((rule) => {
        const bound = rule.match.schemaFingerprint;
        const current = rule.match.serverId && rule.match.toolName ? fingerprints.get(`${rule.match.serverId}\0${rule.match.toolName}`) : undefined;
        return {
          id: rule.id,
          level: rule.level,
          match: { ...rule.match },
          ...(rule.note ? { note: rule.note } : {}),
          createdAt: rule.createdAt,
          fromApproval: bound !== undefined,
          stale: bound !== undefined && current !== undefined && current !== bound,
        };
      }),
    };
  }

  async setToolLevel({ serverId, toolName, level }: RequestOf<'permissions.setToolLevel'>): Promise<PermissionsView> {
    const id = toolRuleId(serverId, toolName);
    if (level === 'default') await this.engine.removeRule(id);
    else await this.engine.addRule({ id, level, match: { serverId, toolName }, note: `Set in Permissions: ${level} for ${toolName}` });
    this.changed();
    return this.view();
  }

  async setServerTrust(serverId: string, trusted: boolean): Promise<PermissionsView> {
    await this.setTrusted(serverId, trusted);
    this.changed();
    return this.view();
  }

  async removeRule(ruleId: string): Promise<PermissionsView> {
    await this.engine.removeRule(ruleId);
    this.changed();
    return this.view();
  }
}
