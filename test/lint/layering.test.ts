import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { PRODUCT_NAME } from '../../shared/product.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

// The layering rules of eslint.config.js, proven to fire: each snippet is linted with the
// project's configuration at a virtual path inside a layer, so a rule that silently stopped
// matching (a renamed folder, a glob typo, a later config object overriding it) fails here.
// The renderer's feature folders are proven twice: on sample imports and over the real tree.
// Type-aware parsing (no-deprecated over electron/: test/lint/noDeprecated.test.ts) needs real
// files of the TypeScript project; these rules need none, and the snippets' paths are virtual.
const eslint = new ESLint({
  cwd: PROJECT_ROOT,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-deprecated': 'off' },
  },
});

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(PROJECT_ROOT, filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

/** One import of `specifier`, used so that no other rule complains. */
const importOf = (specifier: string): string =>
  `import * as probe from '${specifier}';\nexport const used: unknown = probe;\n`;

describe('layering: no electron import below the shell', () => {
  const code =
    "import { app } from 'electron';\nimport type { IpcMain } from 'electron/main';\nexport const used: unknown = [app, null as unknown as IpcMain];\n";

  it.each([
    'electron/mcp/client.ts',
    'electron/core/core.ts',
    'electron/web/host.ts',
    'electron/security/anything.ts',
    'shared/contract.ts',
    'renderer/src/ui/Probe.tsx',
  ])('refuses it in %s', async (file) => {
    const errors = await restricted(file, code);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/Only the Electron shell/);
  });

  it.each(['electron/main.ts', 'electron/preload.ts', 'electron/shell/windowOptions.ts'])(
    'allows it in the shell: %s',
    async (file) => {
      expect(await restricted(file, code)).toEqual([]);
    },
  );
});

describe('layering: production code speaks MCP through the SDK v2 packages, never v1', () => {
  it.each([
    ['electron/mcp/client.ts', '@modelcontextprotocol/sdk/client/index.js'],
    ['electron/gateway/agentServer.ts', '@modelcontextprotocol/sdk/server/index.js'],
    ['electron/core/core.ts', '@modelcontextprotocol/sdk/types.js'],
    ['electron/web/host.ts', '@modelcontextprotocol/sdk'],
    ['electron/shell/ipcHandler.ts', '@modelcontextprotocol/sdk/types.js'],
    ['shared/contract.ts', '@modelcontextprotocol/sdk/types.js'],
  ])('refuses v1 in %s', async (file, specifier) => {
    const errors = await restricted(file, importOf(specifier));
    expect(errors.some((message) => /SDK v2 packages/.test(message))).toBe(true);
  });

  it.each([
    ['electron/mcp/client.ts', '@modelcontextprotocol/client'],
    ['electron/gateway/agentServer.ts', '@modelcontextprotocol/server'],
    ['electron/gateway/modernAgents.ts', '@modelcontextprotocol/node'],
    ['test/gateway/eras.test.ts', '@modelcontextprotocol/sdk/client/index.js'],
  ])('allows %s to import %s', async (file, specifier) => {
    expect(await restricted(file, importOf(specifier))).toEqual([]);
  });
});

describe('layering: the renderer imports only its own files, shared/ and allowed browser libraries', () => {
  const file = 'renderer/src/ui/servers/Probe.tsx';

  it.each([
    'node:fs',
    'fs',
    'path',
    'node:child_process',
    'os',
    'better-sqlite3',
    'ws',
    'conf',
    'electron-store',
    '@napi-rs/keyring',
    'write-file-atomic',
    '@modelcontextprotocol/sdk/client/stdio.js',
    '@modelcontextprotocol/sdk/server/stdio.js',
    'some-package-added-tomorrow',
  ])('refuses %s (not a browser library on the allow-list)', async (specifier) => {
    const errors = await restricted(file, importOf(specifier));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/The renderer runs in a sandboxed browser page/);
  });

  it.each([
    '../../../../electron/core/types.js',
    '../../../../electron/mcp/registry.js',
    '../../../../electron/storage/database.js',
  ])('refuses main-process code: %s', async (specifier) => {
    const errors = await restricted(file, importOf(specifier));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/The renderer imports only its own files and shared\//);
  });

  it('refuses a type-only import and a re-export as well', async () => {
    const code =
      "import type { Database } from 'better-sqlite3';\nexport * from 'node:path';\nexport type Db = Database;\n";
    expect(await restricted(file, code)).toHaveLength(2);
  });

  it.each([
    'react',
    'react-dom/client',
    'zustand',
    'zustand/vanilla',
    '@rjsf/core',
    '@rjsf/utils',
    '@tanstack/react-virtual',
    'zod',
    '../../../../shared/contract.js',
    '../../bridge/index.js',
    './ServerRow.js',
  ])('allows %s', async (specifier) => {
    expect(await restricted(file, importOf(specifier))).toEqual([]);
  });
});

describe('layering: renderer feature folders never import each other', () => {
  it.each([
    ['renderer/src/ui/tools/Probe.tsx', '../servers/ServerTools.js'],
    ['renderer/src/ui/servers/Probe.tsx', '../tools/ToolsView.js'],
    ['renderer/src/ui/history/Probe.tsx', '../traces/TracesView.js'],
    ['renderer/src/ui/traces/Probe.tsx', '../history/HistoryView.js'],
    ['renderer/src/ui/settings/Probe.tsx', '../servers/form/ServerEditor.js'],
    ['renderer/src/ui/servers/form/Probe.tsx', '../../agents/AgentsView.js'],
    ['renderer/src/ui/servers/features/Probe.tsx', '../../../ui/runs/RunsView.js'],
    ['renderer/src/ui/runs/Probe.tsx', '../layout/Sidebar.js'],
  ])('%s may not import %s', async (file, specifier) => {
    const errors = await restricted(file, importOf(specifier));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/never imports another feature folder/);
  });

  it('holds for type-only imports and re-exports', async () => {
    const code =
      "import type { Probe } from '../servers/ServerList.js';\nexport { ToolsView } from '../tools/ToolsView.js';\nexport type Used = Probe;\n";
    expect(await restricted('renderer/src/ui/agents/Probe.tsx', code)).toHaveLength(2);
  });

  it.each(['../tools/ToolList.js', '../../ui/history/HistoryView.js'])(
    'keeps ui/components/ free of features: %s',
    async (specifier) => {
      const errors = await restricted('renderer/src/ui/components/Probe.tsx', importOf(specifier));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/ui\/components\/ is shared by the features/);
    },
  );

  it.each([
    ['renderer/src/lib/probe.ts', '../ui/components/CopyButton.js'],
    ['renderer/src/state/slices/probe.ts', '../../ui/servers/ServerList.js'],
    ['renderer/src/bridge/probe.ts', '../ui/App.js'],
  ])('keeps %s below the UI: %s', async (file, specifier) => {
    const errors = await restricted(file, importOf(specifier));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/are below the UI/);
  });

  it.each([
    './ToolList.js',
    './form/theme.js',
    '../components/CopyButton.js',
    '../../lib/describeError.js',
    '../../state/useAppStore.js',
    '../../bridge/index.js',
    '../../../../shared/contract.js',
  ])('lets a feature import %s', async (specifier) => {
    expect(await restricted('renderer/src/ui/tools/Probe.tsx', importOf(specifier))).toEqual([]);
  });

  it('lets ui/App.tsx compose the features and a feature use its own subfolders', async () => {
    expect(await restricted('renderer/src/ui/App.tsx', importOf('./tools/ToolsView.js'))).toEqual([]);
    expect(
      await restricted('renderer/src/ui/servers/ServerDetail.tsx', importOf('./features/ServerPrompts.js')),
    ).toEqual([]);
    expect(await restricted('renderer/src/ui/servers/features/Probe.tsx', importOf('../form/Field.js'))).toEqual([]);
  });

  it('holds in the real renderer tree: no file imports across feature folders', async () => {
    const results = await eslint.lintFiles(['renderer/src/**/*.{ts,tsx}']);
    expect(results.length).toBeGreaterThan(100);
    const crossings = results.flatMap((result) =>
      result.messages
        .filter((m) => m.ruleId === 'no-restricted-imports')
        .map((m) => `${result.filePath}:${m.line}: ${m.message}`),
    );
    expect(crossings).toEqual([]);
    // CPU work only: 10 minutes is a cap for a hang, not a margin (it took 126 s on a loaded 2-core machine).
  }, 600_000);
});

describe('layering: shared/ runs in both the renderer and Node', () => {
  it.each(['node:fs', 'better-sqlite3', 'react'])('refuses the package %s', async (specifier) => {
    const errors = await restricted('shared/probe.ts', importOf(specifier));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/shared\/ runs in both the renderer and Node/);
  });

  it.each(['../electron/mcp/types.js', '../renderer/src/state/store.js'])('refuses %s', async (specifier) => {
    const errors = await restricted('shared/probe.ts', importOf(specifier));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/shared\/ imports only shared\//);
  });

  it.each(['zod', './contract.js'])('allows %s', async (specifier) => {
    expect(await restricted('shared/probe.ts', importOf(specifier))).toEqual([]);
  });
});

describe('layering: the lower layers never import core/, web/ or shell/', () => {
  const CORE_FILES = [
    'electron/mcp/client.ts',
    'electron/harness/application.ts',
    'electron/security/permissions.ts',
    'electron/checkpoints/sqliteStore.ts',
    'electron/tracing/tracer.ts',
    'electron/storage/database.ts',
    'electron/tools/readFile.ts',
    'electron/secrets/fileSecretStore.ts',
    'electron/sandbox/bwrap.ts',
    'electron/results/toolResult.ts',
  ];
  const UPWARD = ['../core/types.js', '../web/host.js', '../shell/exposedApi.js', '../main.js', '../preload.js'];

  it.each(CORE_FILES.flatMap((file) => UPWARD.map((specifier) => [file, specifier])))(
    '%s may not import %s',
    async (file, specifier) => {
      const errors = await restricted(file, importOf(specifier));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /The lower layers .* never import|The lower layers never import the Electron entry points/,
      );
    },
  );

  it('holds in a nested folder, for type-only imports and for re-exports', async () => {
    const code =
      "import type { Core } from '../../core/types.js';\nexport { startHost } from '../../web/host.js';\nexport type HostCore = Core;\n";
    const errors = await restricted('electron/mcp/registry/connections.ts', code);
    expect(errors).toHaveLength(2);
  });

  it.each([
    '../storage/database.js',
    '../results/toolResult.js',
    '../../shared/contract.js',
    './types.js',
    'node:fs',
    'better-sqlite3',
    '@modelcontextprotocol/client/stdio',
  ])('allows %s', async (specifier) => {
    expect(await restricted('electron/checkpoints/probe.ts', importOf(specifier))).toEqual([]);
  });

  it.each([
    ['electron/main.ts', './core/core.js'],
    ['electron/shell/configStore.ts', '../storage/configFile.js'],
    ['electron/web/cli.ts', '../core/core.js'],
    ['electron/serve/serve.ts', '../web/host.js'],
    ['electron/cli/bridgeClient.ts', '../web/access.js'],
    ['electron/core/core.ts', '../mcp/registry.js'],
  ])(
    'lets the hosts and the composition root (core/) build on the lower layers: %s imports %s',
    async (file, specifier) => {
      expect(await restricted(file, importOf(specifier))).toEqual([]);
    },
  );
});

describe('layering: redaction lives in secrets/, so the code below the tracer never imports tracing/', () => {
  it.each([
    ['electron/mcp/client.ts', '../tracing/tracer.js'],
    ['electron/mcp/registry/state.ts', '../../tracing/tracer.js'],
    ['electron/secrets/resolver.ts', '../tracing/tracer.js'],
    ['electron/checkpoints/hash.ts', '../tracing/schema.js'],
    ['electron/security/permissions.ts', '../tracing/tracer.js'],
    ['electron/storage/database.ts', '../tracing/schema.js'],
  ])('%s may not import %s', async (file, specifier) => {
    const errors = await restricted(file, importOf(specifier));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/never import tracing\/: redaction is secrets\//);
  });

  it('keeps the rules of the lower layers there too', async () => {
    const errors = await restricted('electron/mcp/client.ts', importOf('../core/types.js'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/The lower layers .* never import/);
  });

  it.each([
    ['electron/mcp/client.ts', '../secrets/redaction.js'],
    ['electron/harness/application.ts', '../tracing/tracer.js'],
    ['electron/core/core.ts', '../tracing/tracer.js'],
  ])('%s may import %s', async (file, specifier) => {
    expect(await restricted(file, importOf(specifier))).toEqual([]);
  });
});

describe('layering: apps/ is above the pipeline, so the MCP layer, the pipeline and the runs never import it', () => {
  it.each([
    ['electron/mcp/client.ts', '../apps/appService.js'],
    ['electron/mcp/registry/state.ts', '../../apps/appResource.js'],
    ['electron/harness/application.ts', '../apps/appService.js'],
    ['electron/runs/runTools.ts', '../apps/appCallRate.js'],
    ['electron/checkpoints/hash.ts', '../apps/errors.js'],
  ])('%s may not import %s', async (file, specifier) => {
    const errors = await restricted(file, importOf(specifier));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/apps\/ is above the pipeline/);
  });

  it('keeps the tracer rule below it (both rules fire where both apply)', async () => {
    const errors = await restricted(
      'electron/storage/database.ts',
      `${importOf('../apps/errors.js')}import * as t from '../tracing/schema.js';\nexport const t2: unknown = t;\n`,
    );
    expect(errors).toHaveLength(2);
  });

  it.each([
    ['electron/core/core.ts', '../apps/appService.js'],
    ['electron/gateway/catalog.ts', '../apps/appResource.js'],
    ['electron/apps/appService.ts', '../mcp/toolUi.js'],
    ['electron/harness/application.ts', '../mcp/toolUi.js'],
  ])('%s may import %s', async (file, specifier) => {
    expect(await restricted(file, importOf(specifier))).toEqual([]);
  });
});

describe('layering: the two hosts share the app core and nothing else', () => {
  it.each([
    ['electron/main.ts', './web/dataDir.js', /not in web\//],
    ['electron/shell/configStore.ts', '../web/confConfigStore.js', /not in web\//],
    ['electron/web/cli.ts', '../shell/windowOptions.js', /never import the Electron shell/],
    ['electron/web/cli.ts', '../main.js', /never import the Electron shell/],
    ['electron/serve/serve.ts', '../shell/windowOptions.js', /never import the Electron shell/],
    ['electron/core/core.ts', '../shell/sender.js', /never import the Electron shell/],
    ['electron/core/core.ts', '../web/host.js', /not in web\//],
  ])('%s may not import %s', async (file, specifier, message) => {
    const errors = await restricted(file, importOf(specifier));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });
});

describe('product identity', () => {
  it('shared/product.ts names the product as package.json does (Electron and the installer use that one)', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { productName: string };
    expect(PRODUCT_NAME).toBe(pkg.productName);
  });
});
