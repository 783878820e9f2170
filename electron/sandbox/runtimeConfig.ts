/**
 * What the app hands sandbox-runtime for one server: the per-command configuration of its wrap
 * (`customConfig`: the file rules) and the per-command network allow list registered under the
 * wrap's id (`registerCommandNetworkLists`). The library's global configuration allows no host and
 * no file write, so nothing but this decides what a server reaches.
 *
 * Windows: sandbox-runtime 0.0.83 refuses per-command read and write grants there (`srt-win exec`
 * takes denies only; grants are made once per session, with an elevated install), so a server's
 * own folder and roots cannot be granted per server: refused with a code, never run unconfined.
 */
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import type { ServerSandboxProfile } from './serverProfile.js';

type RuntimeConfigRefusal = 'platform_unsupported' | 'windows_per_server_grants';

export type RuntimeConfig =
  | { ok: true; customConfig: Partial<SandboxRuntimeConfig>; hosts: string[] }
  | { ok: false; code: RuntimeConfigRefusal };

export function runtimeConfigOf(profile: ServerSandboxProfile, platform: NodeJS.Platform): RuntimeConfig {
  if (platform === 'win32') return { ok: false, code: 'windows_per_server_grants' };
  if (platform !== 'linux' && platform !== 'darwin') return { ok: false, code: 'platform_unsupported' };
  // Each path is marked literal: a folder named `[WIP] *` is that folder, never a pattern.
  const literal = (path: string): { path: string; literal: true } => ({ path, literal: true });
  return {
    ok: true,
    customConfig: {
      filesystem: {
        denyRead: profile.read.deny.map(literal),
        allowRead: profile.read.allow.map(literal),
        allowWrite: profile.write.map(literal),
        denyWrite: [],
      },
    },
    hosts: [...profile.hosts],
  };
}
