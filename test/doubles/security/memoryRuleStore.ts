/** Test doubles for the security layer. */
import type { PermissionRule } from '../../../electron/security/permissions.js';
import type { PermissionRuleStore } from '../../../electron/security/permissionStore.js';

/** Keeps rules in memory and records every save (a deep copy), optionally failing. */
export class MemoryRuleStore implements PermissionRuleStore {
  saves: PermissionRule[][] = [];
  failSaves = false;

  constructor(private rules: PermissionRule[] = []) {}

  async load(): Promise<PermissionRule[]> {
    return structuredClone(this.rules);
  }

  async save(rules: PermissionRule[]): Promise<void> {
    if (this.failSaves) throw new Error('disk full (test double)');
    this.rules = structuredClone(rules);
    this.saves.push(structuredClone(rules));
  }
}
