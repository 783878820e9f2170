// Types for startDecision.mjs (so the tests typecheck against it).
export declare const BUILD_OUTPUTS: readonly string[];
export declare const BUILD_INPUTS: readonly string[];
export declare const STARTUP_WINDOW_MS: number;
export declare const ELECTRON_TOOLING_NODE: string;
export declare const ELECTRON_DEFAULT_MIRROR: string;
export declare const NO_DISPLAY_REASON: string;
export declare const OFFLINE_HINT: string;

type Env = Record<string, string | undefined>;
interface Probe {
  root: string;
  env: Env;
  exists: (path: string) => boolean;
  readText: (path: string) => string | undefined;
}

export declare function isBuildStale(input: {
  outputMtimes: Array<number | undefined>;
  newestInputMtime: number;
}): boolean;
export declare function findElectronBinary(input: Probe): { path: string } | { reason: string };
export declare function hasDisplay(platform: string, env: Env): boolean;
export declare function decideLaunch(
  input: Probe & { platform: string },
): { mode: 'electron'; electronPath: string } | { mode: 'browser'; reason: string };
export declare function shouldFallBack(exit: {
  code: number | null;
  signal: string | null;
  elapsedMs: number;
  interrupted: boolean;
}): boolean;
export declare function browserModeLine(reason: string): string;
export declare function electronEnv(env: Env): Env;
export declare function nodeAtLeast(version: string, minimum: string): boolean;
export declare function electronDownloadHost(env: Env): { host: string; port: number };
export declare function usesProxy(env: Env): boolean;
export declare function setupBlocker(input: { nodeVersion: string; env: Env; engines?: string }): string | undefined;

export type HelperStat = { uid: number; mode: number } | undefined;
export declare const USERNS_SYSCTLS: { apparmorRestrict: string; usernsClone: string };
export declare function usernsRestrictions(sysctls: {
  apparmorRestrict: string | undefined;
  usernsClone: string | undefined;
}): string[];
export declare function sandboxHelperPath(electronPath: string): string;
export declare function helperIsSetUid(helper: HelperStat): boolean;
export declare function sandboxFixCommand(helperPath: string): string;
export declare function sandboxBlocker(input: {
  platform: string;
  apparmorRestrict: string | undefined;
  usernsClone: string | undefined;
  helperPath: string;
  helper: HelperStat;
}): string | undefined;
export declare function failedStartReason(exit: {
  code: number | null;
  signal: string | null;
  stderrTail: string;
  electronPath: string;
}): string;
export declare function tailKeeper(limit: number): { add(chunk: string): void; readonly text: string };
