/**
 * `@typescript-eslint/no-deprecated` runs over electron/ with type information (eslint.config.js):
 * a deprecated Electron API — here the sync safeStorage call Electron 46 removes — fails the
 * lint. Linted as the text of a real shell file, so the TypeScript project knows it.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

const eslint = new ESLint({ cwd: PROJECT_ROOT });

async function deprecations(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(PROJECT_ROOT, file) });
  const fatal = (result?.messages ?? []).filter((m) => m.fatal);
  expect(fatal, 'the file parsed with type information').toEqual([]);
  return (result?.messages ?? []).filter((m) => m.ruleId === '@typescript-eslint/no-deprecated').map((m) => m.message);
}

it('refuses the sync safeStorage API in the shell and accepts the async one', async () => {
  const file = 'electron/shell/safeStorageSecrets.ts';
  const sync =
    "import { safeStorage } from 'electron';\nexport const sealed: Buffer = safeStorage.encryptString('x');\n";
  const async =
    "import { safeStorage } from 'electron';\nexport const sealed: Promise<Buffer> = safeStorage.encryptStringAsync('x');\n";
  expect(await deprecations(file, sync)).toEqual([expect.stringMatching(/encryptString.*deprecated/)]);
  expect(await deprecations(file, async)).toEqual([]);
  // Type-aware linting is CPU work only: 10 minutes is a cap for a hang, not a margin (it took 135 s on a loaded 2-core machine).
}, 600_000);
