import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

// One adapter for the MCP SDK (issue 37.5): only electron/mcp/sdkAdapter.ts subclasses the SDK's
// deprecated low-level Server (or its Client) and reaches their protected and private members
// (eslint.config.js's no-restricted-syntax), and no other file disables no-deprecated for the
// Server class. Virtual paths, no type information: as functionLength.test.ts.
const eslint = new ESLint({
  cwd: PROJECT_ROOT,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-deprecated': 'off' as const },
  },
});
const ADAPTER = 'electron/mcp/sdkAdapter.ts';

async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(PROJECT_ROOT, filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

const SUBCLASS = "import { Server } from '@modelcontextprotocol/server';\nexport class Probe extends Server {}\n";
const CLIENT = "import { Client } from '@modelcontextprotocol/client';\nexport const probe = Client;\n";
const PRIVATE_MAP =
  'export function probe(server: { _requestHandlers?: unknown }): unknown {\n  return server._requestHandlers;\n}\n';
const PROTECTED_SEAM =
  'export function probe(client: { _onresponse(r: unknown): void }): void {\n  client._onresponse({});\n}\n';

describe('the MCP SDK is worked around in one adapter file', () => {
  it.each([
    ['electron/gateway/probe.ts', SUBCLASS],
    ['electron/gateway/probe.ts', CLIENT],
    ['electron/mcp/tasks/probe.ts', CLIENT],
    ['electron/telemetry/probe.ts', PRIVATE_MAP],
    ['electron/mcp/probe.ts', PROTECTED_SEAM],
  ])('refuses it in %s', async (file, code) => {
    expect(await refusals(file, code)).toEqual([expect.stringMatching(/sdkAdapter\.ts/)]);
  });

  it('allows it in the adapter, and type imports anywhere', async () => {
    for (const code of [SUBCLASS, CLIENT, PRIVATE_MAP, PROTECTED_SEAM])
      expect(await refusals(ADAPTER, code)).toEqual([]);
    const typeOnly = "import type { Server } from '@modelcontextprotocol/server';\nexport type Probe = Server;\n";
    expect(await refusals('electron/gateway/probe.ts', typeOnly)).toEqual([]);
  });

  it('no file but the adapter disables no-deprecated for the Server class', () => {
    const files = globSync('electron/**/*.ts', { cwd: PROJECT_ROOT }).filter((f) => f !== ADAPTER);
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      const lines = readFileSync(join(PROJECT_ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (!/eslint-disable.*no-deprecated/.test(line)) return;
        // The directive's reason and the line it covers: neither may be about the Server class.
        const covered = line.includes('eslint-disable-next-line') ? (lines[i + 1] ?? '') : line;
        if (/\bServer\b/.test(line) || /(:\s*|new |extends |<)Server\b/.test(covered)) found.push(`${file}:${i + 1}`);
      });
    }
    expect(found).toEqual([]);
    // The one directive for the class, with its reason, is in the adapter.
    const adapter = readFileSync(join(PROJECT_ROOT, ADAPTER), 'utf8');
    expect(adapter).toMatch(/eslint-disable-next-line @typescript-eslint\/no-deprecated -- .*low-level Server/);
  });
});
