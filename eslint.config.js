// @ts-check
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Files that run in the Electron shell: the only ones allowed to import `electron`. */
const SHELL_FILES = ['electron/main.ts', 'electron/preload.ts', 'electron/shell/**'];

/** `miniharness serve` and the `miniharness` command line: built on browser mode (web/) and the core. */
const SERVER_HOST_FILES = ['electron/serve/**', 'electron/cli/**'];

/**
 * The hosts and the composition root: everything under electron/ that is not "core". The core
 * (mcp, harness, security, checkpoints, tracing, storage, tools, secrets, sandbox) is built by
 * them and must never reach back up into them.
 */
const HOST_FILES = [...SHELL_FILES, 'electron/web/**', 'electron/core/**', ...SERVER_HOST_FILES];

/**
 * The only packages the renderer may import: an allow-list, not a deny-list. The renderer runs in
 * a sandboxed browser page, so the safe set is small and known, while the unsafe set (every Node
 * built-in, every Node-only package the main process may add tomorrow) is open-ended: a deny-list
 * would pass the next one. Adding a browser library here is a deliberate, reviewed one-line change.
 */
// MCP Apps: the ext-apps host bridge (browser code: postMessage and the SDK's Protocol).
const RENDERER_PACKAGES = [
  'react',
  'react-dom',
  'zustand',
  '@rjsf/core',
  '@rjsf/utils',
  '@tanstack/react-virtual',
  'zod',
  '@modelcontextprotocol/ext-apps/app-bridge',
  // JSON Schema without eval (the page's CSP forbids it): the args form's oneOf / if choices.
  '@cfworker/json-schema',
];
/**
 * `shared/` is imported by the renderer and by Node, so it may only use what both can run. The
 * ext-apps host bridge runs in both (the renderer's apps use it; its schemas are zod over the SDK).
 */
const SHARED_PACKAGES = ['zod', '@modelcontextprotocol/ext-apps/app-bridge'];

const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * A bare specifier outside `packages` (and not `electron`, which has its own rule and message).
 * Relative specifiers are left to the folder patterns below.
 * @param {string[]} packages
 */
const outsidePackages = (packages) =>
  `^(?!\\.{1,2}/|(?:${[...packages, 'electron'].map(escapeRegex).join('|')})(?:/|$))`;

const ELECTRON_PACKAGE = {
  paths: [
    {
      name: 'electron',
      message: 'Only the Electron shell (electron/main.ts, electron/preload.ts, electron/shell/) may import electron.',
    },
  ],
  patterns: [{ group: ['electron/*'], message: 'Only the Electron shell may import electron.' }],
};

/**
 * The SDK's v1 line (`@modelcontextprotocol/sdk`) speaks MCP only up to 2025-11-25: the product
 * speaks through the v2 packages. v1 stays a dev dependency, for tests whose legacy-era peers
 * (servers and agents) are what real v1 programs are.
 */
const NOT_V1_SDK = {
  group: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*'],
  message:
    'Production code speaks MCP through the SDK v2 packages (@modelcontextprotocol/client, /server, /core, /node); the v1 package is for legacy-era peers in tests only.',
};

/**
 * One `no-restricted-imports` setting per layer: in flat config the last matching object's
 * options replace the earlier ones, so each layer lists the electron rule with its own.
 * @param {Array<{ regex: string, message: string }>} patterns
 */
const restrictImports = (patterns = []) => [
  'error',
  { paths: ELECTRON_PACKAGE.paths, patterns: [...ELECTRON_PACKAGE.patterns, ...patterns] },
];

const RENDERER_LAYER = [
  {
    regex: outsidePackages(RENDERER_PACKAGES),
    message: `The renderer runs in a sandboxed browser page: it imports only its own files, shared/ and the browser libraries in eslint.config.js (${RENDERER_PACKAGES.join(', ')}). No Node built-ins, no Node-only packages — ask the main process through the contract.`,
  },
  {
    regex: '^(?:\\.\\./)+(?:electron|test|bench|scripts)(?:/|$)',
    message:
      'The renderer imports only its own files and shared/: main-process code (electron/) reaches it through the contract.',
  },
];

/**
 * The renderer's feature folders (renderer/src/ui/<feature>/): every folder of ui/ except
 * components/, read from disk so a new feature is kept apart without editing this file. A feature
 * imports components/, lib/, state/, bridge/, shared/ and its own folder, never another feature:
 * what two features share moves to ui/components/ (or lib/ when it is not UI). ui/App.tsx, which
 * composes the features, is in no feature folder.
 */
const RENDERER_UI = 'renderer/src/ui';
const FEATURE_FOLDERS = readdirSync(new URL(`./${RENDERER_UI}/`, import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'components')
  .map((entry) => entry.name);
/**
 * A relative specifier that climbs into one of `folders` of ui/ (`../tools/x.js`, or from deeper
 * down `../../tools/x.js`, `../../ui/tools/x.js`).
 * @param {string[]} folders
 * @param {string} message
 */
const intoFolders = (folders, message) => ({
  regex: `^(?:\\.\\./)+(?:ui/)?(?:${folders.map(escapeRegex).join('|')})(?:/|$)`,
  message,
});
/** @param {string} feature */
const NOT_OTHER_FEATURES = (feature) =>
  intoFolders(
    FEATURE_FOLDERS.filter((name) => name !== feature),
    `A renderer feature folder (ui/${feature}/) never imports another feature folder: what two features share lives in ui/components/ (or lib/ when it is not UI).`,
  );
const COMPONENTS_NOT_FEATURES = intoFolders(
  FEATURE_FOLDERS,
  'ui/components/ is shared by the features, so it imports no feature folder: move what it needs into components/ or lib/.',
);
/** lib/, state/ and bridge/ are below the UI: the UI imports them, never the other way round. */
const NOT_UI = {
  regex: '^(?:\\.\\./)+ui(?:/|$)',
  message:
    'renderer/src/lib/, state/ and bridge/ are below the UI: they never import ui/ (a word or a rule the UI and lib/ share lives in lib/).',
};

const SHARED_LAYER = [
  {
    regex: outsidePackages(SHARED_PACKAGES),
    message: `shared/ runs in both the renderer and Node: it imports only shared/ and ${SHARED_PACKAGES.join(', ')}.`,
  },
  {
    regex: '^(?:\\.\\./)+(?:electron|renderer|test|bench|scripts)(?:/|$)',
    message: 'shared/ imports only shared/: it is the contract both sides build on, never the other way round.',
  },
];

const CORE_LAYER = [
  {
    regex: '^\\.{1,2}/(?:.+/)?(?:core|web|shell)/',
    message:
      'The lower layers (electron/ except main.ts, preload.ts, shell/, web/ and core/) never import core/, web/ or shell/: those compose the lower layers, so a type both need lives in a lower layer and the host imports it.',
  },
  {
    regex: '^(?:\\.\\./)+(?:electron/)?(?:main|preload)(?:\\.[jt]s)?$',
    message: 'The lower layers never import the Electron entry points (main.ts, preload.ts).',
  },
];

/**
 * Below MCP Apps: apps/ (an app's page and its calls as "<server>'s app") is built on the pipeline,
 * so the MCP layer, the pipeline, the runs and everything under them never import it; what they
 * need of the extension (a tool's `_meta.ui`, the client's declaration) lives in mcp/.
 */
const BELOW_APPS = [
  'electron/mcp/**/*.ts',
  'electron/harness/**/*.ts',
  'electron/runs/**/*.ts',
  'electron/models/**/*.ts',
  'electron/results/**/*.ts',
  'electron/tools/**/*.ts',
  'electron/sandbox/**/*.ts',
  'electron/tracing/**/*.ts',
  'electron/util/**/*.ts',
  'electron/secrets/**/*.ts',
  'electron/checkpoints/**/*.ts',
  'electron/security/**/*.ts',
  'electron/storage/**/*.ts',
];
const NOT_APPS = {
  regex: '^\\.{1,2}/(?:.+/)?apps/',
  message:
    "apps/ is above the pipeline: mcp/, harness/, runs/ and the layers below never import it (what they need of MCP Apps, a tool's _meta.ui or the extension's declaration, lives in mcp/).",
};

/**
 * Below the tracer: the MCP layer, the secrets, the checkpoint, security and storage code never
 * import tracing/. Redaction (the known secrets and the rules) lives in secrets/ and is injected.
 */
const BELOW_TRACING = [
  'electron/mcp/**/*.ts',
  'electron/secrets/**/*.ts',
  'electron/checkpoints/**/*.ts',
  'electron/security/**/*.ts',
  'electron/storage/**/*.ts',
];
const NOT_TRACING = {
  regex: '^\\.{1,2}/(?:.+/)?tracing/',
  message:
    'mcp/, secrets/, checkpoints/, security/ and storage/ never import tracing/: redaction is secrets/ (SecretRedactor, redaction.ts), given to them by their builder.',
};

/** The two hosts share the app core and nothing else: neither reaches into the other. */
const NOT_WEB = {
  regex: '^\\.{1,2}/(?:.+/)?web/',
  message:
    'The Electron shell and browser mode are two hosts of one core: what both need lives in core/ or shared/, not in web/.',
};
const NOT_SHELL = {
  regex: '^(?:\\.{1,2}/(?:.+/)?shell/|(?:\\.\\./)+(?:main|preload)(?:\\.[jt]s)?$)',
  message:
    'Browser mode and the app never import the Electron shell (main.ts, preload.ts, shell/): what both hosts need lives in core/ or shared/.',
};

/** The one file that works around the MCP SDK (see the rule at the end). */
const SDK_ADAPTER = 'electron/mcp/sdkAdapter.ts';
const SDK_ADAPTER_ONLY = [
  {
    selector:
      "ImportDeclaration[importKind!='type'][source.value=/^@modelcontextprotocol\\/(server|client)$/] > ImportSpecifier[importKind!='type'][imported.name=/^(Server|Client|Protocol)$/]",
    message:
      "The SDK's Server and Client classes are used through electron/mcp/sdkAdapter.ts (GatewayServer, SdkClient): every SDK workaround lives there, with the SDK behaviour it works around.",
  },
  {
    selector:
      'MemberExpression[property.name=/^_(requestHandlers|notificationHandlers|wrapHandler|onrequest|onresponse|onnotification|progressHandlers|responseHandlers)$/]',
    message:
      "The SDK's protected and private members are reached only in electron/mcp/sdkAdapter.ts, with the SDK behaviour each works around.",
  },
];

/** Production code: what the 100-line function limit covers (tests, benches and scripts are not held to it). */
const PRODUCTION_FILES = ['electron/**/*.ts', 'renderer/src/**/*.{ts,tsx}', 'shared/**/*.ts'];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.tsbuild/',
      '.cache/',
      'scratch/',
      'dist/',
      'out/',
      'test-results/',
      'playwright-report/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // Layering (proven by test/lint/layering.test.ts). The core runs in plain Node and is tested
  // there, so nothing below the shell may import electron; each layer adds its own limits.
  {
    // Browser mode: no electron, and nothing of the Electron shell.
    files: ['electron/web/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([NOT_V1_SDK, NOT_SHELL]) },
  },
  {
    // The server host and the command line: browser mode for a team; nothing of the Electron shell.
    files: SERVER_HOST_FILES.map((glob) => `${glob}/*.ts`),
    rules: { 'no-restricted-imports': restrictImports([NOT_V1_SDK, NOT_SHELL]) },
  },
  {
    // The composition root serves both hosts, so it imports neither.
    files: ['electron/core/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([NOT_V1_SDK, NOT_SHELL, NOT_WEB]) },
  },
  {
    // The Electron shell may import electron, but not the other host.
    files: SHELL_FILES,
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_V1_SDK, NOT_WEB] }] },
  },
  {
    files: ['electron/**/*.ts'],
    ignores: HOST_FILES,
    rules: { 'no-restricted-imports': restrictImports([NOT_V1_SDK, ...CORE_LAYER]) },
  },
  {
    files: BELOW_APPS,
    rules: { 'no-restricted-imports': restrictImports([NOT_V1_SDK, ...CORE_LAYER, NOT_APPS]) },
  },
  {
    files: BELOW_TRACING,
    rules: { 'no-restricted-imports': restrictImports([NOT_V1_SDK, ...CORE_LAYER, NOT_APPS, NOT_TRACING]) },
  },
  {
    files: ['shared/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([NOT_V1_SDK, ...SHARED_LAYER]) },
  },
  {
    // Type-aware: a deprecated API (Electron marks what its next majors remove, e.g. the sync
    // safeStorage calls gone in Electron 46; Node and the MCP SDK mark theirs) fails the lint.
    files: ['electron/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-deprecated': 'error' },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': restrictImports(RENDERER_LAYER) },
  },
  {
    files: ['renderer/src/{lib,state,bridge}/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': restrictImports([...RENDERER_LAYER, NOT_UI]) },
  },
  {
    files: [`${RENDERER_UI}/components/**/*.{ts,tsx}`],
    rules: { 'no-restricted-imports': restrictImports([...RENDERER_LAYER, COMPONENTS_NOT_FEATURES]) },
  },
  // One object per feature folder: each lists every feature but its own.
  ...FEATURE_FOLDERS.map((feature) => ({
    files: [`${RENDERER_UI}/${feature}/**/*.{ts,tsx}`],
    rules: { 'no-restricted-imports': restrictImports([...RENDERER_LAYER, NOT_OTHER_FEATURES(feature)]) },
  })),
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The renderer: the rules of hooks and the React Compiler's checks (purity, refs, effects).
    files: ['renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.flat.recommended.rules },
  },
  {
    // No function over 100 lines in production code (issue 37.3; test/lint/functionLength.test.ts):
    // a longer one is split along its seams (a slice's concerns, a view's parts, a host's sections).
    // No file is exempt.
    files: PRODUCTION_FILES,
    rules: { 'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }] },
  },
  {
    // One adapter for the MCP SDK (issue 37.5; test/lint/sdkAdapter.test.ts): only
    // electron/mcp/sdkAdapter.ts subclasses the SDK's Server or Client or reaches their protected
    // and private members; everything else uses the SDK's public API and the adapter's.
    files: ['electron/**/*.ts'],
    ignores: [SDK_ADAPTER],
    rules: { 'no-restricted-syntax': ['error', ...SDK_ADAPTER_ONLY] },
  },
);
