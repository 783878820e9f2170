/**
 * Every dependency with an install script is decided in package.json's `allowScripts` (npm 11
 * reads it): the lockfile marks such packages `hasInstallScript`, and one not listed makes
 * `npm ci` warn that its script is "not yet covered" (issue 34.12: tldjs). A new dependency that
 * brings a script fails here until someone reads the script and writes allow or deny.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

interface LockPackage {
  version?: string;
  hasInstallScript?: boolean;
}

it('every package the lockfile marks as having an install script is allowed or denied by name', () => {
  const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockPackage>;
  };
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    allowScripts?: Record<string, boolean>;
  };
  const decided = new Set(Object.keys(manifest.allowScripts ?? {}).map((entry) => entry.replace(/(.)@[^@]*$/, '$1')));
  const withScripts = Object.entries(lock.packages)
    .filter(([path, pkg]) => path !== '' && pkg.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(withScripts.length).toBeGreaterThan(0);
  expect(withScripts.filter((name) => !decided.has(name))).toEqual([]);
  // Its postinstall only fetches a fresh public-suffix list from the network when asked to; denied.
  expect(manifest.allowScripts?.['tldjs']).toBe(false);
});
