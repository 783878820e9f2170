/**
 * The contract's `sandbox.*` part (issue 29): the hosts sandboxed servers may reach by the
 * person's answers — "always" (in the server's profile, `sandbox.hosts`) and "for this session"
 * (in memory) — each revocable beside the permission rules, and the person's choice to run a
 * server the platform cannot sandbox unsandboxed.
 */
import { z } from 'zod';
import { ServerIdSchema } from '../serverConfig.js';
import type { DomainChannels } from './common.js';
import { Empty, channel } from './common.js';

const HostRuleSourceSchema = z.enum(['profile', 'session']);

const HostRuleViewSchema = z.object({
  serverId: z.string(),
  /** `host[:port]` as sandbox-runtime spells it. */
  host: z.string(),
  /** `profile`: listed in the server's Sandbox section (an "always" answer lands there); `session`: until the app quits. */
  source: HostRuleSourceSchema,
});
export type HostRuleView = z.infer<typeof HostRuleViewSchema>;

export const sandboxChannels = {
  'sandbox.hostRules': channel(Empty, z.array(HostRuleViewSchema)),
  /** Takes a host away from a server: from its profile (the server restarts) or from this session's grants. */
  'sandbox.revokeHost': channel(
    z.object({ serverId: ServerIdSchema, host: z.string().min(1).max(300), source: HostRuleSourceSchema }).strict(),
    z.object({ revoked: z.boolean() }),
  ),
  /** The person chose to run a stdio server without its sandbox (`sandbox.enabled: false`, remembered). */
  'sandbox.runUnsandboxed': channel(z.object({ serverId: ServerIdSchema }).strict(), z.object({ ok: z.literal(true) })),
} as const satisfies DomainChannels;
