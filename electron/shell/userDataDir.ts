/**
 * The data folder the Electron app uses: `--user-data-dir` when given (tests, a second profile),
 * resolved against the working folder when relative — Electron's app.setPath throws on a relative
 * path — else `<appData>/<product name>`, as browser mode's (electron/core/dataDir.ts). Pure.
 */
import { isAbsolute, join, resolve } from 'node:path';

export function userDataDir(input: { switchValue: string; cwd: string; appData: string; productName: string }): string {
  const given = input.switchValue.trim();
  if (!given) return join(input.appData, input.productName);
  return isAbsolute(given) ? given : resolve(input.cwd, given);
}
