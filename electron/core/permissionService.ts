/**
 * The Permissions view: each tool's effective level and why (a stored rule, this session's
 * "allow for this session" grant, a default from annotations, or a forced ask), per-server
 * trust, the stored rules — per-tool levels set here, and "always allow" grants from approval
 * dialogs (bound to the server's identity and the tool's fingerprint, shown as stale when either
 * changed) — and this session's grants, each revocable.
 */
import type { PermissionReasonKind, PermissionRuleView, PermissionsView, RequestOf } from '../../shared/contract.js';
import type { PinView } from '../../shared/contract/toolPins.js';
import type { HarnessApplication } from '../harness/application.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import type { SandboxInfo } from '../sandbox/commandSandbox.js';
import type { PermissionDecision, PermissionDecisionEngine, PermissionRule } from '../security/permissions.js';
import { LOCAL_SERVER_ID, requireAsk } from '../security/permissions.js';
import { mustAskReason } from '../tools/runCommand.js';

/** The one rule "deny flagged tools" (issue 31): a tool whose definition has poisoning flags is refused. */
const DENY_FLAGGED_RULE_ID = 'deny-flagged-tools';

/**
 * Per-tool rules set in the Permissions view have a stable id per server identity, so setting again
 * replaces. The identity is in it because the rules may be shared (PostgreSQL) by instances that each
 * gave the server its own identity (`miniharness serve` adds the configured servers in each instance's
 * data folder): each instance's rule then stays its own instead of replacing the other's, which would
 * not apply to this server. Rules saved before carry the id without it (`legacyToolRuleId`).
 */
function toolRuleId(serverId: string, toolName: string, uid: string | undefined): string {
  const legacy = legacyToolRuleId(serverId, toolName);
  const id = uid ? `${legacy}@${uid.slice(0, 8)}` : legacy;
  return id.length <= 200 ? id : legacy;
}

function legacyToolRuleId(serverId: string, toolName: string): string {
  return `tool:${serverId}:${toolName}`;
}

/** A decision as the GUI shows it: the engine's, or a session grant / forced ask on top of it. */
interface EffectiveDecision {
  level: PermissionDecision['level'];
  reason: { kind: PermissionReasonKind; detail: string; ruleId?: string };
}

/** The local tool whose own guard asks every time when the OS gives it no sandbox. */
const RUN_COMMAND = 'run_command';

export class PermissionService {
  constructor(
    private readonly engine: PermissionDecisionEngine,
    private readonly harness: HarnessApplication,
    private readonly registry: MCPToolRegistry,
    private readonly setTrusted: (serverId: string, trusted: boolean) => Promise<void>,
    private readonly changed: () => void,
    /** The GUI's session: its "allow for this session" grants are the ones shown. */
    private readonly sessionId: () => string,
    private readonly sandbox: () => Promise<SandboxInfo>,
  ) {}

  async view(): Promise<PermissionsView> {
    const engine = this.engine;
    const security = this.harness.security;
    const sandbox = await this.sandbox();
    const rules = engine.listRules();
    const tools = this.harness.listTools();
    const fingerprints = new Map(tools.map((t) => [`${t.serverId}\0${t.name}`, t.schemaFingerprint]));
    const grants = security.sessionGrants(this.sessionId());
    const grantOf = (serverId: string, toolName: string) =>
      grants.find((g) => g.serverId === serverId && g.toolName === toolName);
    const ruleViews = rules.map((rule) => this.ruleView(rule, fingerprints));
    const liveRuleIds = new Set(ruleViews.filter((r) => !r.stale).map((r) => r.id));
    return {
      tools: tools.map((tool) => {
        const server = tool.serverId === LOCAL_SERVER_ID ? undefined : this.registry.server(tool.serverId);
        const decided = engine.explain({
          toolName: tool.name,
          serverId: tool.serverId,
          args: {},
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
          serverTrusted: tool.serverId === LOCAL_SERVER_ID || server?.trusted === true,
          schemaFingerprint: tool.schemaFingerprint,
          ...(server?.uid ? { serverUid: server.uid } : {}),
        });
        // Mirrors SecureToolExecutor.authorize: a forced ask beats rules and grants; a grant turns an ASK into an allow.
        const forced =
          tool.serverId === LOCAL_SERVER_ID && tool.name === RUN_COMMAND ? mustAskReason(sandbox) : undefined;
        const grant = grantOf(tool.serverId, tool.name);
        const granted = grant !== undefined && grant.schemaFingerprint === tool.schemaFingerprint;
        let decision: EffectiveDecision = decided;
        if (forced && decided.level !== 'DENY')
          decision = { ...requireAsk(decided, forced), reason: { kind: 'forced-ask', detail: forced } };
        else if (granted && decided.level === 'ASK') {
          decision = {
            level: 'ALLOW',
            reason: {
              kind: 'session-grant',
              detail: `You allowed ${tool.name} for this session: it runs without asking until the app restarts or you revoke it`,
            },
          };
        }
        const id = [toolRuleId(tool.serverId, tool.name, server?.uid), legacyToolRuleId(tool.serverId, tool.name)].find(
          (candidate) => liveRuleIds.has(candidate),
        );
        return {
          toolName: tool.name,
          serverId: tool.serverId,
          level: decision.level,
          reason: {
            kind: decision.reason.kind,
            detail: decision.reason.detail,
            ...(decision.reason.ruleId ? { ruleId: decision.reason.ruleId } : {}),
          },
          ...(id ? { toolRuleId: id } : {}),
          ...(granted ? { sessionGrant: true } : {}),
        };
      }),
      servers: this.registry.servers().map((s) => ({ serverId: s.id, name: s.name, trusted: s.trusted })),
      rules: ruleViews,
      sessionGrants: grants.map((g) => {
        const current = fingerprints.get(`${g.serverId}\0${g.toolName}`);
        return {
          serverId: g.serverId,
          toolName: g.toolName,
          stale: current === undefined || current !== g.schemaFingerprint,
        };
      }),
      pins: this.pinViews(tools),
      denyFlagged: rules.some((r) => r.id === DENY_FLAGGED_RULE_ID),
    };
  }

  /** Each pin, named by the server's id now (or when pinned, for a server gone), `changed` when listed with another definition. */
  private pinViews(tools: ReturnType<HarnessApplication['listTools']>): PinView[] {
    const pins = this.harness.security.pins?.list() ?? [];
    const changed = new Set(
      tools.filter((t) => t.pin?.state === 'changed').map((t) => `${this.harness.serverUid(t.serverId)}\0${t.name}`),
    );
    const idOf = new Map(this.registry.servers().flatMap((s) => (s.uid ? [[s.uid, s.id] as const] : [])));
    return pins.map((pin) => ({
      serverId: idOf.get(pin.serverUid) ?? pin.serverId,
      toolName: pin.toolName,
      hash: pin.hash,
      pinnedAt: pin.pinnedAt,
      pinnedBy: pin.pinnedBy,
      decision: pin.decision,
      changed: changed.has(`${pin.serverUid}\0${pin.toolName}`),
    }));
  }

  /** Adds or removes the global rule that denies every tool with poisoning flags. */
  async setDenyFlagged(deny: boolean): Promise<PermissionsView> {
    if (deny)
      await this.engine.addRule({
        id: DENY_FLAGGED_RULE_ID,
        level: 'DENY',
        match: { flagged: true },
        note: 'Deny tools with poisoning flags',
      });
    else await this.engine.removeRule(DENY_FLAGGED_RULE_ID);
    this.changed();
    return this.view();
  }

  async setToolLevel({ serverId, toolName, level }: RequestOf<'permissions.setToolLevel'>): Promise<PermissionsView> {
    const uid = serverId === LOCAL_SERVER_ID ? undefined : this.registry.server(serverId)?.uid;
    const id = toolRuleId(serverId, toolName, uid);
    // This server's rule saved under the id without the identity is replaced (another identity's is not).
    const legacy = this.engine
      .listRules()
      .find(
        (r) =>
          r.id !== id &&
          r.id === legacyToolRuleId(serverId, toolName) &&
          (r.match.serverUid === undefined || r.match.serverUid === uid),
      );
    if (legacy) await this.engine.removeRule(legacy.id);
    if (level === 'default') await this.engine.removeRule(id);
    else {
      await this.engine.addRule({
        id,
        level,
        match: { serverId, toolName, ...(uid ? { serverUid: uid } : {}) },
        note: `Set in Permissions: ${level} for ${toolName}`,
      });
    }
    this.changed();
    return this.view();
  }

  async setServerTrust(serverId: string, trusted: boolean): Promise<PermissionsView> {
    await this.setTrusted(serverId, trusted);
    this.changed();
    return this.view();
  }

  async removeRule(ruleId: string): Promise<PermissionsView> {
    const rule = this.engine.listRules().find((r) => r.id === ruleId);
    await this.engine.removeRule(ruleId);
    // Revoking an "always allow" drops its tool's pin: the next call asks as if never approved.
    const { serverId, toolName, schemaFingerprint } = rule?.match ?? {};
    if (
      serverId !== undefined &&
      toolName !== undefined &&
      schemaFingerprint !== undefined &&
      serverId !== LOCAL_SERVER_ID
    )
      this.harness.security.pins?.unpin(rule?.match.serverUid ?? this.harness.serverUid(serverId), toolName);
    this.changed();
    return this.view();
  }

  async revokeSessionGrant({
    serverId,
    toolName,
  }: RequestOf<'permissions.revokeSessionGrant'>): Promise<PermissionsView> {
    // The executor announces the change (permissions.changed) itself.
    this.harness.security.revokeSessionGrant(this.sessionId(), serverId, toolName);
    return this.view();
  }

  /**
   * Removes the rules made for a server (before the server itself is removed): the rules that
   * name its id, except those bound to another server identity. Returns how many.
   */
  async removeRulesOfServer(serverId: string): Promise<number> {
    const uid = this.registry.server(serverId)?.uid;
    const engine = this.engine;
    const mine = engine
      .listRules()
      .filter((r) => r.match.serverId === serverId && (r.match.serverUid === undefined || r.match.serverUid === uid));
    for (const rule of mine) await engine.removeRule(rule.id);
    const unpinned = this.harness.security.pins?.unpinServer(this.harness.serverUid(serverId)) ?? 0;
    if (mine.length > 0 || unpinned > 0) this.changed();
    return mine.length;
  }

  /** Binds rules saved before server identities existed to their server's identity (at start). */
  async bindRulesToServers(): Promise<void> {
    if ((await this.engine.bindServerIdentities((id) => this.registry.server(id)?.uid)) > 0) this.changed();
  }

  private ruleView(rule: PermissionRule, fingerprints: ReadonlyMap<string, string>): PermissionRuleView {
    const { serverId, toolName, schemaFingerprint: bound, serverUid } = rule.match;
    const server = serverId !== undefined && serverId !== LOCAL_SERVER_ID ? this.registry.server(serverId) : undefined;
    const current = serverId && toolName ? fingerprints.get(`${serverId}\0${toolName}`) : undefined;
    const staleReason: PermissionRuleView['staleReason'] =
      serverId !== undefined && serverId !== LOCAL_SERVER_ID && !server
        ? 'server_removed'
        : serverUid !== undefined && server?.uid !== serverUid
          ? 'server_replaced'
          : bound !== undefined && current !== undefined && current !== bound
            ? 'tool_changed'
            : undefined;
    return {
      id: rule.id,
      level: rule.level,
      match: { ...rule.match },
      ...(rule.note ? { note: rule.note } : {}),
      createdAt: rule.createdAt,
      fromApproval: bound !== undefined,
      stale: staleReason !== undefined,
      ...(staleReason ? { staleReason } : {}),
    };
  }
}
