/**
 * The settings the GUI edits, kept in the configuration store and applied at once:
 * - the folders the local tools may use. The workspace is always the first folder (set by
 *   --workspace / MINIHARNESS_WORKSPACE, not here); the person adds more in Settings → Folders.
 *   The local tools are rebuilt over the new folders and handed to the harness;
 * - the agent gateway (on/off, port), restarted by the core when it changes;
 * - the agents' idle window (minutes), handed to the running gateway when it changes;
 * - how long an approval waits for an answer (read by the executor per request);
 * - what run_command's sandbox lets every command read, write and reach beyond its defaults (read per call).
 * A saved value that is not valid is ignored with a warning (the file is left as it is).
 */
import { statSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_AGENT_IDLE_MINUTES, DEFAULT_GATEWAY_PORT } from '../../shared/agents.js';
import { isAbsolute, resolve } from 'node:path';
import type { SettingsView } from '../../shared/contract.js';
import { AgentIdleMinutesSchema, CommandSandboxSettingsSchema } from '../../shared/contract/settings.js';
import type { FieldErrors } from '../../shared/serverConfig.js';
import type { CommandSandboxSettings } from '../sandbox/commandSandbox.js';
import { NO_COMMAND_SANDBOX_SETTINGS } from '../sandbox/commandSandbox.js';
import { createLocalTools } from '../tools/localTools.js';
import type { LocalTool } from '../tools/types.js';
import { ValidationFailedError } from './errors.js';
import type { ConfigStore } from '../storage/configFile.js';
import { overlapWithData } from './workspace.js';

const ROOTS_KEY = 'localTools.extraRoots';
const GATEWAY_KEY = 'gateway.endpoint';
const APPROVAL_TIMEOUT_KEY = 'approvals.timeoutSeconds';
const AGENT_IDLE_KEY = 'gateway.idleMinutes';
const COMMAND_SANDBOX_KEY = 'localTools.commandSandbox';
/**
 * 55 s, chosen with agents' own timeouts in mind: the MCP SDKs (TypeScript v1 and v2,
 * DEFAULT_REQUEST_TIMEOUT_MSEC) give up on a request after 60 s, and clients built on them
 * inherit it (Claude Desktop's tool calls were reported to end at about 60 s). An approval that
 * expires first lets such an agent still read the gateway's true answer ("nobody answered …,
 * ask the user to open MiniHarness, then call it again") instead of its own timeout while the
 * dialog still counts down for a call nobody waits for. Agents that send a progress token are
 * kept waiting by the gateway's progress (approvalWaitProgress.ts), and the person can allow
 * longer in Settings → Approvals (10–3600 s).
 */
const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 55;

export interface GatewaySettings {
  enabled: boolean;
  port: number;
}
const GatewaySettingsSchema = z.object({ enabled: z.boolean(), port: z.number().int().min(1).max(65535) });
const ApprovalTimeoutSchema = z.number().int().min(10).max(3600);
const KEEP_RUNNING_KEY = 'desktop.keepRunningOnClose';
/** Closing the desktop window keeps the app serving (approvals, the gateway) unless the person turns it off. */
const KEEP_RUNNING_DEFAULT = true;

export class SettingsService {
  private extra: string[];
  private gatewaySettings: GatewaySettings;
  private approvalTimeoutSeconds: number;
  private agentIdleMinutes: number;
  private commandSandbox: CommandSandboxSettings;
  /** Told when the gateway settings changed (the core restarts the endpoint). */
  onGatewayChanged: (settings: GatewaySettings) => void = () => undefined;
  /** Told the new idle window, in ms (the core hands it to the running gateway). */
  onAgentIdleChanged: (idleMs: number) => void = () => undefined;

  constructor(
    private readonly config: ConfigStore,
    /** The workspace's real path (the first root, fixed). */
    private readonly workspace: string,
    private readonly dataDir: string,
    /** Told the new local tools when the folders change. */
    private readonly apply: (tools: LocalTool[]) => void,
    private readonly warn: (message: string) => void,
  ) {
    this.extra = this.loadExtra();
    this.gatewaySettings = this.loadValid(
      GATEWAY_KEY,
      GatewaySettingsSchema,
      { enabled: true, port: DEFAULT_GATEWAY_PORT },
      'agent gateway settings',
    );
    this.approvalTimeoutSeconds = this.loadValid(
      APPROVAL_TIMEOUT_KEY,
      ApprovalTimeoutSchema,
      DEFAULT_APPROVAL_TIMEOUT_SECONDS,
      'approval timeout',
    );
    this.agentIdleMinutes = this.loadValid(
      AGENT_IDLE_KEY,
      AgentIdleMinutesSchema,
      DEFAULT_AGENT_IDLE_MINUTES,
      'agent idle session time',
    );
    this.commandSandbox = this.loadValid(
      COMMAND_SANDBOX_KEY,
      CommandSandboxSettingsSchema,
      NO_COMMAND_SANDBOX_SETTINGS,
      'run_command sandbox',
    );
  }

  view(): SettingsView {
    return {
      roots: [{ path: this.workspace, workspace: true }, ...this.extra.map((path) => ({ path, workspace: false }))],
      gateway: { ...this.gatewaySettings },
      agentIdleMinutes: this.agentIdleMinutes,
      approvalTimeoutSeconds: this.approvalTimeoutSeconds,
      keepRunningOnClose: this.keepRunningOnClose(),
      commandSandbox: {
        read: [...this.commandSandbox.read],
        write: [...this.commandSandbox.write],
        hosts: [...this.commandSandbox.hosts],
      },
    };
  }

  /** What each run_command call may read, write and reach beyond its sandbox's defaults (read per call). */
  commandSandboxSettings(): CommandSandboxSettings {
    return this.commandSandbox;
  }

  setCommandSandbox(settings: CommandSandboxSettings): SettingsView {
    const parsed = CommandSandboxSettingsSchema.safeParse(settings);
    if (!parsed.success) {
      const fieldErrors: FieldErrors = {};
      for (const issue of parsed.error.issues) (fieldErrors[issue.path.join('.')] ??= []).push(issue.message);
      throw new ValidationFailedError('A run_command sandbox entry cannot be used; nothing was changed.', fieldErrors);
    }
    this.config.set(COMMAND_SANDBOX_KEY, parsed.data);
    this.commandSandbox = parsed.data;
    return this.view();
  }

  gateway(): GatewaySettings {
    return { ...this.gatewaySettings };
  }

  setGateway(settings: GatewaySettings): SettingsView {
    const next = GatewaySettingsSchema.parse(settings);
    this.config.set(GATEWAY_KEY, next);
    this.gatewaySettings = next;
    this.onGatewayChanged({ ...next });
    return this.view();
  }

  /** The agents' idle window, in ms (the gateway's: a session or client unseen this long goes). */
  agentIdleMs(): number {
    return this.agentIdleMinutes * 60_000;
  }

  setAgentIdle(minutes: number): SettingsView {
    const next = AgentIdleMinutesSchema.parse(minutes);
    this.config.set(AGENT_IDLE_KEY, next);
    this.agentIdleMinutes = next;
    this.onAgentIdleChanged(this.agentIdleMs());
    return this.view();
  }

  /** How long an approval waits, in ms (the executor reads it for each request). */
  approvalTimeoutMs(): number {
    return this.approvalTimeoutSeconds * 1000;
  }

  setApprovalTimeout(seconds: number): SettingsView {
    const next = ApprovalTimeoutSchema.parse(seconds);
    this.config.set(APPROVAL_TIMEOUT_KEY, next);
    this.approvalTimeoutSeconds = next;
    return this.view();
  }

  private loadValid<T>(key: string, schema: z.ZodType<T>, fallback: T, what: string): T {
    const saved = this.config.get(key);
    if (saved === undefined) return fallback;
    const parsed = schema.safeParse(saved);
    if (parsed.success) return parsed.data;
    this.warn(
      `The saved setting "${what}" is not valid; its default is used until it is set again in Settings (the file is unchanged).`,
    );
    return fallback;
  }

  /** Desktop app: whether closing the window keeps the app running in the tray / dock. */
  keepRunningOnClose(): boolean {
    const saved = this.config.get(KEEP_RUNNING_KEY);
    return typeof saved === 'boolean' ? saved : KEEP_RUNNING_DEFAULT;
  }

  setKeepRunningOnClose(keepRunning: boolean): SettingsView {
    this.config.set(KEEP_RUNNING_KEY, keepRunning);
    return this.view();
  }

  /** Every folder the local tools may use: the workspace first. */
  roots(): string[] {
    return [this.workspace, ...this.extra];
  }

  /** The local tools over the current folders (the data folder always excluded). */
  localTools(): LocalTool[] {
    return createLocalTools({ roots: this.roots(), excluded: [this.dataDir], command: this.commandOptions() });
  }

  /** Validates every folder before changing anything; saves; applies to the tools at once. */
  setRoots(roots: readonly string[]): SettingsView {
    const fieldErrors: FieldErrors = {};
    const next: string[] = [];
    roots.forEach((raw, i) => {
      const problem = this.problemWith(raw.trim());
      if (problem) (fieldErrors[`roots.${i}`] ??= []).push(problem);
      else {
        const path = resolve(raw.trim());
        if (path !== this.workspace && !next.includes(path)) next.push(path);
      }
    });
    if (Object.keys(fieldErrors).length > 0)
      throw new ValidationFailedError('A folder cannot be used; nothing was changed.', fieldErrors);
    const tools = createLocalTools({
      roots: [this.workspace, ...next],
      excluded: [this.dataDir],
      command: this.commandOptions(),
    });
    this.config.set(ROOTS_KEY, next);
    this.extra = next;
    this.apply(tools);
    return this.view();
  }

  /** run_command reads the sandbox settings at each call: a change applies to the next one. */
  private commandOptions(): { sandboxSettings: () => CommandSandboxSettings } {
    return { sandboxSettings: () => this.commandSandbox };
  }

  private problemWith(path: string): string | undefined {
    if (!isAbsolute(path)) return 'must be an absolute path (e.g. /home/me/projects)';
    if (path.includes('\0')) return 'must not contain a NUL character';
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      return 'does not exist';
    }
    if (!isDir) return 'is not a folder';
    const overlap = overlapWithData(path, this.dataDir);
    if (overlap) return `${overlap} (the app's secrets and database): local tools may not reach it`;
    return undefined;
  }

  /** The saved folders; one that is no longer usable is left out (and said), never deleted from the file. */
  private loadExtra(): string[] {
    const saved = this.config.get(ROOTS_KEY);
    if (saved === undefined) return [];
    if (!Array.isArray(saved)) {
      this.warn('The saved local-tool folders were not a list; they were ignored (the file is unchanged).');
      return [];
    }
    const usable: string[] = [];
    for (const entry of saved) {
      const problem = typeof entry === 'string' ? this.problemWith(entry) : 'is not a path';
      if (problem)
        this.warn(
          `The local-tool folder ${JSON.stringify(entry)} ${problem}; it is not used until fixed in Settings → Folders.`,
        );
      else if (!usable.includes(entry as string) && entry !== this.workspace) usable.push(entry as string);
    }
    return usable;
  }
}
