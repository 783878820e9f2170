// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Files that run in the Electron shell: the only ones allowed to import `electron`. */
const SHELL_FILES = ['electron/main.ts', 'electron/preload.ts', 'electron/shell/**'];

export default tseslint.config(
  { ignores: ['node_modules/', '.tsbuild/', '.cache/', 'scratch/', 'dist/', 'out/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Layering: the core (MCP, registry, security, checkpoints, traces) runs in plain
    // Node and is tested there, so nothing below the shell may import electron.
    files: ['electron/**/*.ts', 'shared/**/*.ts', 'renderer/**/*.{ts,tsx}'],
    ignores: SHELL_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'Only the Electron shell (electron/main.ts, electron/preload.ts, electron/shell/) may import electron.' }],
          patterns: [{ group: ['electron/*'], message: 'Only the Electron shell may import electron.' }],
        },
      ],
    },
  },
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
);
