/**
 * Sandboxed servers (issue 29): the hosts they may reach by the person's answers ("always" in a
 * server's profile, "for this session" in memory), shown and revoked beside the permission rules,
 * and the choice to run a server the platform cannot sandbox unsandboxed. 'permissions.changed'
 * reloads the host rules once they have been loaded.
 */
import type { HostRuleView } from '../../../../shared/contract.js';
import { messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator } from '../types.js';

export interface SandboxSlice {
  hostRules: HostRuleView[] | undefined;
  loadHostRules(): Promise<void>;
  /** Reloads only when loaded before. */
  refreshHostRules(): void;
  revokeHost(rule: HostRuleView): Promise<void>;
  /** Sets `sandbox.enabled: false` for the server (the person confirmed). */
  runUnsandboxed(serverId: string): Promise<boolean>;
}

export const createSandboxSlice: ClientSliceCreator<SandboxSlice> = (client) => (set, get) => ({
  hostRules: undefined,

  async loadHostRules() {
    try {
      set({ hostRules: await client.call('sandbox.hostRules', {}) }, false, 'sandbox/hostRules');
    } catch (error) {
      get().notify('error', `Could not load the host rules: ${messageOf(error)}`);
    }
  },

  refreshHostRules() {
    if (get().hostRules !== undefined) void get().loadHostRules();
  },

  async revokeHost(rule) {
    try {
      await client.call('sandbox.revokeHost', rule);
      await get().loadHostRules();
    } catch (error) {
      get().notify('error', `Could not revoke ${rule.host}: ${messageOf(error)}`);
    }
  },

  async runUnsandboxed(serverId) {
    try {
      await client.call('sandbox.runUnsandboxed', { serverId });
      return true;
    } catch (error) {
      get().notify('error', `Could not turn the sandbox off: ${messageOf(error)}`);
      return false;
    }
  },
});
