/** The contract's `permissions.*` part: each tool's level and why, the rules, the session grants. */
import { z } from 'zod';
import { ServerIdSchema } from '../serverConfig.js';
import type { DomainChannels, DomainEvents } from './common.js';
import { Empty, channel } from './common.js';
import { PinViewSchema } from './toolPins.js';

const PermissionLevelSchema = z.enum(['ALLOW', 'ASK', 'DENY']);

const PermissionRuleViewSchema = z.object({
  id: z.string(),
  level: PermissionLevelSchema,
  match: z.looseObject({
    serverId: z.string().optional(),
    toolName: z.string().optional(),
    toolPattern: z.string().optional(),
    schemaFingerprint: z.string().optional(),
    /** The identity of the server the rule was made for (see ServerConfig `uid`). */
    serverUid: z.string().optional(),
    /** The rule matches only tools with poisoning flags. */
    flagged: z.boolean().optional(),
  }),
  note: z.string().optional(),
  createdAt: z.number(),
  /** An "always allow" granted from an approval dialog (bound to the tool's fingerprint). */
  fromApproval: z.boolean(),
  /** The rule no longer applies: see `staleReason`. */
  stale: z.boolean(),
  /**
   * Why a stale rule no longer applies: `tool_changed` (the tool's schema changed since),
   * `server_replaced` (a different server now has this id), `server_removed` (no server has it).
   */
  staleReason: z.enum(['tool_changed', 'server_replaced', 'server_removed']).optional(),
});
export type PermissionRuleView = z.infer<typeof PermissionRuleViewSchema>;

/**
 * Why a tool has its level now: a stored `rule`; a `session-grant` ("allow for this session",
 * revocable); a default (`trusted-annotation-default`, `untrusted-default`, `default`); or
 * `forced-ask` (the tool's own guard asks every time, e.g. run_command without an OS sandbox).
 */
const PermissionReasonKindSchema = z.enum([
  'rule',
  'session-grant',
  'trusted-annotation-default',
  'untrusted-default',
  'default',
  'forced-ask',
  'tool-changed',
]);
export type PermissionReasonKind = z.infer<typeof PermissionReasonKindSchema>;

const ToolPermissionViewSchema = z.object({
  toolName: z.string(),
  serverId: z.string(),
  /** The level a call gets now (an "allow for this session" grant included). */
  level: PermissionLevelSchema,
  reason: z.object({ kind: PermissionReasonKindSchema, detail: z.string(), ruleId: z.string().optional() }),
  /** This GUI session holds an "allow for this session" grant for the tool (revocable). */
  sessionGrant: z.boolean().optional(),
  /** The id of this tool's own per-tool rule, when one is set. */
  toolRuleId: z.string().optional(),
});

const PermissionsViewSchema = z.object({
  tools: z.array(ToolPermissionViewSchema),
  servers: z.array(z.object({ serverId: z.string(), name: z.string(), trusted: z.boolean() })),
  rules: z.array(PermissionRuleViewSchema),
  /** This GUI session's "allow for this session" grants; `stale` when the tool changed since. */
  sessionGrants: z.array(z.object({ serverId: z.string(), toolName: z.string(), stale: z.boolean() })),
  /** Each tool's pinned definition: when, by whom, and whether the tool is listed now with another one (issue 31). */
  pins: z.array(PinViewSchema).optional(),
  /** A rule denies every tool with poisoning flags ("deny flagged tools"). */
  denyFlagged: z.boolean().optional(),
});
export type PermissionsView = z.infer<typeof PermissionsViewSchema>;

export const permissionChannels = {
  'permissions.get': channel(Empty, PermissionsViewSchema),
  /** Sets one tool's level; `default` removes its rule (the default applies again). */
  'permissions.setToolLevel': channel(
    z
      .object({
        serverId: ServerIdSchema,
        toolName: z.string().min(1).max(200),
        level: z.enum(['ALLOW', 'ASK', 'DENY', 'default']),
      })
      .strict(),
    PermissionsViewSchema,
  ),
  'permissions.setServerTrust': channel(
    z.object({ serverId: ServerIdSchema, trusted: z.boolean() }).strict(),
    PermissionsViewSchema,
  ),
  /** Revokes a rule (an "always allow", or a per-tool level). */
  'permissions.removeRule': channel(z.object({ ruleId: z.string().min(1).max(200) }).strict(), PermissionsViewSchema),
  /** Revokes this GUI session's "allow for this session" grant for one tool: it asks again. */
  'permissions.revokeSessionGrant': channel(
    z.object({ serverId: ServerIdSchema, toolName: z.string().min(1).max(200) }).strict(),
    PermissionsViewSchema,
  ),
  /** Adds (or removes) the rule that denies every tool with poisoning flags. */
  'permissions.setDenyFlagged': channel(z.object({ deny: z.boolean() }).strict(), PermissionsViewSchema),
} as const satisfies DomainChannels;

export const permissionEvents = {
  'permissions.changed': z.object({}),
} as const satisfies DomainEvents;
