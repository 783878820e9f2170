import type { ChildProcess } from 'node:child_process';

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
  /** Where /proc/sys/kernel/… are read from; default '/'. */
  procRoot?: string;
  log?: (line: string) => void;
}

export declare const PROBE_TIMEOUT_MS: number;
export declare function prepareLaunch(input: PrepareInput): Promise<LaunchPlan>;
export declare function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean>;
export declare function launchElectron(input: {
  electronPath: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  stderr?: { write(chunk: string): unknown };
  onChild?: (child: ChildProcess) => void;
  interrupted?: () => boolean;
}): Promise<{ fallBack: string } | { code: number | null; signal: NodeJS.Signals | null }>;
