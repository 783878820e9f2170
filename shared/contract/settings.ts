/** The contract's `settings.*` part: the app settings the GUI edits (folders, gateway, agents' idle window, approval timeout, keep running). */
import { z } from 'zod';
import type { DomainChannels, DomainEvents } from './common.js';
import { Empty, channel } from './common.js';
import { MAX_AGENT_IDLE_MINUTES, MIN_AGENT_IDLE_MINUTES } from '../agents.js';
import { ServerSandboxSchema } from '../serverConfig.js';

/** The agents' idle window in minutes, as `settings.setAgentIdle` takes it (and a saved one is checked). */
export const AgentIdleMinutesSchema = z.number().int().min(MIN_AGENT_IDLE_MINUTES).max(MAX_AGENT_IDLE_MINUTES);

/**
 * What every run_command call may touch beyond its sandbox's defaults (issue 29): folders it may
 * read (the home folder is hidden otherwise) and write (the roots only otherwise), absolute; hosts
 * it may reach (none otherwise), `host[:port]` as for a stdio server's sandbox.
 */
export const CommandSandboxSettingsSchema = ServerSandboxSchema.pick({ read: true, write: true, hosts: true });

/** Settings: the folders the local tools may use. */
const SettingsViewSchema = z.object({
  roots: z.array(
    z.object({
      path: z.string(),
      /** The workspace: always first, cannot be removed here (--workspace / MINIHARNESS_WORKSPACE). */
      workspace: z.boolean(),
    }),
  ),
  /** The agent gateway's endpoint: on or off, and its port on 127.0.0.1. */
  gateway: z.object({ enabled: z.boolean(), port: z.number().int().min(1).max(65535) }),
  /**
   * The agents' idle window, in minutes: a 2025 session unseen this long with no request or stream
   * open is closed (a request on it then gets 404), and a 2026-07-28 client unseen this long is no
   * longer listed as connected.
   */
  agentIdleMinutes: z.number().int(),
  /** How long an approval waits for an answer before the call is denied. */
  approvalTimeoutSeconds: z.number().int(),
  /**
   * Desktop app: closing the window keeps the app (its servers, approvals and the gateway)
   * running in the tray (Windows, Linux) or the dock (macOS). Browser mode ignores it.
   */
  keepRunningOnClose: z.boolean(),
  /** run_command's sandbox: what each command may read, write and reach beyond the defaults. */
  commandSandbox: z.object({ read: z.array(z.string()), write: z.array(z.string()), hosts: z.array(z.string()) }),
});
export type SettingsView = z.infer<typeof SettingsViewSchema>;

export const settingChannels = {
  /** The app settings the GUI edits: the local tools' folders (the workspace first, fixed). */
  'settings.get': channel(Empty, SettingsViewSchema),
  /**
   * Sets the local tools' extra folders (the workspace stays first and is not listed here).
   * Applied at once to the file tools and run_command. A folder that does not exist, is not
   * absolute, or overlaps the data folder is refused (`validation` with fieldErrors `roots.N`).
   */
  'settings.setRoots': channel(
    z.object({ roots: z.array(z.string().min(1).max(4096)).max(50) }).strict(),
    SettingsViewSchema,
  ),
  /** Turns the agent gateway on or off, or moves it to another port (applied at once; a port in use shows in agents.list). */
  'settings.setGateway': channel(
    z.object({ enabled: z.boolean(), port: z.number().int().min(1024).max(65535) }).strict(),
    SettingsViewSchema,
  ),
  /**
   * The agents' idle window in minutes (AgentIdleMinutesSchema: 1–1440), applied at once to the running gateway: sessions
   * and clients already unseen that long go now.
   */
  'settings.setAgentIdle': channel(z.object({ minutes: AgentIdleMinutesSchema }).strict(), SettingsViewSchema),
  /** How long an approval waits before the call is denied (applies to requests made after). */
  'settings.setApprovalTimeout': channel(
    z.object({ seconds: z.number().int().min(10).max(3600) }).strict(),
    SettingsViewSchema,
  ),
  /** Sets whether closing the desktop app's window keeps it running in the background (tray / dock). */
  'settings.setKeepRunning': channel(z.object({ keepRunning: z.boolean() }).strict(), SettingsViewSchema),
  /** Sets what every run_command call may read, write and reach beyond its sandbox's defaults (from the next call). */
  'settings.setCommandSandbox': channel(CommandSandboxSettingsSchema.strict(), SettingsViewSchema),
} as const satisfies DomainChannels;

export const settingEvents = {
  /** A setting changed: the whole settings view (the desktop shell follows `keepRunningOnClose` with it). */
  'settings.changed': z.object({ settings: SettingsViewSchema }),
} as const satisfies DomainEvents;
