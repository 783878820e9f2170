/**
 * No test loads the real `electron` package in plain Node (where it is only the path of a binary
 * that cannot be had here, and Electron 42+ downloads one on the first require): every test whose
 * module graph reaches `electron` — directly, through the shell's files, or through
 * electron-store — replaces it with vi.mock in that file. Type-only imports are erased and do
 * not count. The built bundle gets its double another way (test/doubles/electron/electron-double/).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

/** Packages that load `electron` when imported. */
const ELECTRON_PACKAGES = new Set(['electron', 'electron-store']);
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;

interface References {
  runtime: string[];
  mocked: string[];
}

function references(file: string, text = readFileSync(file, 'utf8')): References {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const runtime: string[] = [];
  const mocked: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) runtime.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      !node.isTypeOnly
    ) {
      runtime.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression) &&
      !node.isTypeOnly
    ) {
      runtime.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node)) {
      const [first] = node.arguments;
      const literal = first && ts.isStringLiteralLike(first) ? first.text : undefined;
      const callee = node.expression;
      if (literal !== undefined) {
        if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require'))
          runtime.push(literal);
        else if (
          ts.isPropertyAccessExpression(callee) &&
          ts.isIdentifier(callee.expression) &&
          callee.expression.text === 'vi' &&
          ['mock', 'doMock'].includes(callee.name.text)
        )
          mocked.push(literal);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { runtime, mocked };
}

/** A relative specifier as the file it names (`./x.js` is `./x.ts` in the source tree). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    `${base}.tsx`,
    join(base, 'index.ts'),
  ];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

const key = (from: string, specifier: string): string =>
  specifier.startsWith('.') ? (resolveRelative(from, specifier) ?? specifier) : specifier;

/**
 * The chain of imports from `entry` to an electron package that vi.mock in `entry` does not
 * replace, or undefined. `read` gives a file's text (tests pass virtual files).
 */
const parsed = new Map<string, References>();
/** The files on disk are parsed once for all entries. */
function referencesOnDisk(file: string): References {
  let refs = parsed.get(file);
  if (!refs) parsed.set(file, (refs = references(file)));
  return refs;
}

function unmockedElectronPath(entry: string, read?: (file: string) => string): string[] | undefined {
  const refsOf = (file: string): References => (read ? references(file, read(file)) : referencesOnDisk(file));
  const own = refsOf(entry);
  const mocked = new Set(own.mocked.map((specifier) => key(entry, specifier)));
  const seen = new Set<string>([entry]);
  const queue: Array<{ file: string; refs: string[]; chain: string[] }> = [
    { file: entry, refs: own.runtime, chain: [relative(PROJECT_ROOT, entry)] },
  ];
  while (queue.length > 0) {
    const { file, refs, chain } = queue.shift() as (typeof queue)[number];
    for (const specifier of refs) {
      const target = key(file, specifier);
      if (mocked.has(target)) continue;
      if (ELECTRON_PACKAGES.has(specifier)) return [...chain, specifier];
      if (
        !specifier.startsWith('.') ||
        !SOURCE.test(target) ||
        seen.has(target) ||
        target.includes(`${join(PROJECT_ROOT, 'node_modules')}`)
      )
        continue;
      seen.add(target);
      queue.push({ file: target, refs: refsOf(target).runtime, chain: [...chain, relative(PROJECT_ROOT, target)] });
    }
  }
  return undefined;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

describe('no test imports electron in plain Node except through vi.mock', () => {
  it('holds for every file under test/', () => {
    const files = filesUnder(join(PROJECT_ROOT, 'test'));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) => {
      const chain = unmockedElectronPath(file);
      return chain ? [chain.join(' → ')] : [];
    });
    expect(offenders).toEqual([]);
    // It parses every test file's import graph (~1,000 files): under a loaded 2-core machine that passed 30 s.
  }, 120_000);

  it('sees the shell test, which reaches electron and mocks it', () => {
    const mainTest = join(PROJECT_ROOT, 'test', 'shell', 'main.test.ts');
    const withoutMock = (file: string) => {
      const text = readFileSync(file, 'utf8');
      return file === mainTest ? text.replace(/vi\.mock\('electron'/g, "vi.unmocked('electron'") : text;
    };
    expect(unmockedElectronPath(mainTest)).toBeUndefined();
    expect(unmockedElectronPath(mainTest, withoutMock)).toEqual(
      expect.arrayContaining(['test/shell/main.test.ts', 'electron/main.ts', 'electron']),
    );
  });

  it('counts runtime imports, dynamic imports and requires, never type-only imports', () => {
    const probe = join(PROJECT_ROOT, 'test', 'lint', '__probe__.ts');
    const read = (text: string) => (file: string) => (file === probe ? text : readFileSync(file, 'utf8'));
    expect(
      unmockedElectronPath(
        probe,
        read("import type { App } from 'electron';\nimport { type Session } from 'electron';\n"),
      ),
    ).toBeUndefined();
    for (const text of [
      "import { app } from 'electron';",
      "const e = await import('electron');",
      "const e = require('electron');",
      "import Store from 'electron-store';",
      "export { app } from 'electron';",
    ]) {
      expect(unmockedElectronPath(probe, read(text)), text).toEqual([
        'test/lint/__probe__.ts',
        text.includes('store') ? 'electron-store' : 'electron',
      ]);
    }
    expect(
      unmockedElectronPath(probe, read("vi.mock('electron', () => ({}));\nimport { app } from 'electron';")),
    ).toBeUndefined();
  });
});
