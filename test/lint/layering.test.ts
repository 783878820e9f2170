import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

// The core runs in plain Node; only the Electron shell may import `electron`. This proves the
// lint rule that enforces it actually fires (a rule that silently stopped matching would pass).
describe('layering: no electron import below the shell', () => {
  const eslint = new ESLint({ cwd: PROJECT_ROOT });
  const code = "import { app } from 'electron';\nimport type { IpcMain } from 'electron/main';\nexport const used: unknown = [app, null as unknown as IpcMain];\n";

  async function layeringErrors(filePath: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: `${PROJECT_ROOT}/${filePath}` });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  }

  it.each(['electron/mcp/client.ts', 'electron/app/core.ts', 'electron/security/anything.ts', 'shared/contract.ts'])('refuses it in %s', async (file) => {
    const errors = await layeringErrors(file);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/Only the Electron shell/);
  });

  it.each(['electron/main.ts', 'electron/preload.ts', 'electron/shell/windowOptions.ts'])('allows it in the shell: %s', async (file) => {
    expect(await layeringErrors(file)).toEqual([]);
  });
});
