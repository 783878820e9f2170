// Types for prepareLaunch.mjs (so the tests typecheck against it).
export type LaunchPlan = { mode: 'electron'; electronPath: string } | { mode: 'browser'; reason: string };

export interface PrepareInput {
  root: string;
  platform: string;
  arch: string;
  env: Record<string, string | undefined>;
  nodeVersion: string;
  /** Default: node_modules/electron/install.js. */
  installerScript?: string;
  probeTimeoutMs?: number;
  log?: (line: string) => void;
}

export declare const PROBE_TIMEOUT_MS: number;
export declare function prepareLaunch(input: PrepareInput): Promise<LaunchPlan>;
export declare function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean>;
