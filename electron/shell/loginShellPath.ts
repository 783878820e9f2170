/**
 * macOS only: an app launched from Finder or the Dock inherits launchd's minimal PATH
 * (/usr/bin:/bin:/usr/sbin:/sbin), so stdio servers started with `npx`, `uvx` or an nvm `node`
 * would not be found. At startup the shell takes the PATH of the person's login shell (through
 * sindresorhus' shell-env, which runs `$SHELL -ilc env`) and puts it before the inherited one.
 * Bounded in time: a slow or broken shell profile costs at most `timeoutMs`, and any failure
 * leaves PATH as it was with one log line. The decisions (when, how to merge) are pure.
 */

/** How long the login shell may take before the app starts without its PATH. */
const LOGIN_SHELL_TIMEOUT_MS = 3_000;

/** Only macOS: there a GUI launch never went through a login shell (Linux desktops' sessions do). */
export function wantsLoginShellPath(
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return platform === 'darwin' && env['MINIHARNESS_LOGIN_SHELL_PATH'] !== '0';
}

/** The login shell's entries first, then the inherited ones it lacks; no empty entries, no duplicates. */
export function mergePaths(inherited: string | undefined, fromShell: string | undefined, delimiter = ':'): string {
  const entries = [...(fromShell ?? '').split(delimiter), ...(inherited ?? '').split(delimiter)]
    .map((entry) => entry.trim())
    .filter(Boolean);
  return [...new Set(entries)].join(delimiter);
}

export interface LoginShellPathDeps {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  /** shell-env's `shellEnv`: the login shell's environment. */
  readShellEnv(): Promise<Readonly<Record<string, string>>>;
  timeoutMs?: number;
  log(message: string): void;
}

/** Sets env.PATH from the login shell where wanted; never throws, never waits longer than the bound. */
export async function adoptLoginShellPath(deps: LoginShellPathDeps): Promise<void> {
  if (!wantsLoginShellPath(deps.platform, deps.env)) return;
  const timeoutMs = deps.timeoutMs ?? LOGIN_SHELL_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const shellEnv = await Promise.race([deps.readShellEnv(), timedOut]);
    const fromShell = shellEnv['PATH'];
    if (!fromShell) throw new Error('it has no PATH');
    deps.env['PATH'] = mergePaths(deps.env['PATH'], fromShell);
  } catch (error) {
    deps.log(
      `Kept the inherited PATH: reading the login shell's PATH failed (${error instanceof Error ? error.message : String(error)}).`,
    );
  } finally {
    clearTimeout(timer);
  }
}
