/**
 * The environment a local command runs with: a short allow-list copied from the app's own,
 * not the whole of it — the app's environment can hold tokens and keys the agent must not see.
 */

export const DEFAULT_ENV_ALLOW_LIST: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_COLLATE',
  'TZ',
  'TERM',
  'TMPDIR',
  // Windows needs these to start most programs at all.
  'SYSTEMROOT',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'TEMP',
  'TMP',
  'USERPROFILE',
];

export function buildCommandEnv(
  base: NodeJS.ProcessEnv,
  allowList: readonly string[] = DEFAULT_ENV_ALLOW_LIST,
  extra: Record<string, string> = {},
): Record<string, string> {
  // Windows variable names are case-insensitive (Path, SystemRoot); elsewhere they are exact.
  const fold = process.platform === 'win32' ? (n: string) => n.toUpperCase() : (n: string) => n;
  const wanted = new Set(allowList.map(fold));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && wanted.has(fold(name))) env[name] = value;
  }
  return { ...env, ...extra };
}
