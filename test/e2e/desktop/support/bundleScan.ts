/**
 * What a built bundle loads and which Node globals it touches, read from its syntax tree (the
 * TypeScript parser reads JavaScript): static imports and re-exports, `import('…')`, `require('…')`.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

export interface ModuleReference {
  kind: 'import' | 'export' | 'dynamic-import' | 'require';
  specifier: string;
  line: number;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
}

function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

/** `createRequire(…)` or `m.createRequire(…)`: it makes a require the bundler does not see through. */
function isCreateRequireCall(node: ts.Node): node is ts.CallExpression {
  if (!ts.isCallExpression(node)) return false;
  const callee = node.expression;
  return (
    (ts.isIdentifier(callee) && callee.text === 'createRequire') ||
    (ts.isPropertyAccessExpression(callee) && callee.name.text === 'createRequire')
  );
}

/** Names bound to a require function: `require`, and every `const x = createRequire(…)`. */
function requireNames(source: ts.SourceFile): Set<string> {
  const names = new Set(['require']);
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      isCreateRequireCall(node.initializer)
    )
      names.add(node.name.text);
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isIdentifier(node.left) &&
      isCreateRequireCall(node.right)
    )
      names.add(node.left.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/**
 * Every module the file loads by a literal name — also through `createRequire(…)('x')` and a
 * require made by createRequire. A computed `import(x)` / `require(x)` is listed as `<computed>`.
 */
export function moduleReferences(file: string): ModuleReference[] {
  const source = parse(file);
  const requires = requireNames(source);
  const found: ModuleReference[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ kind: 'import', specifier: node.moduleSpecifier.text, line: lineOf(source, node) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ kind: 'export', specifier: node.moduleSpecifier.text, line: lineOf(source, node) });
    } else if (ts.isCallExpression(node)) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire =
        (ts.isIdentifier(node.expression) && requires.has(node.expression.text)) ||
        isCreateRequireCall(node.expression);
      if (isImport || isRequire) {
        const [first] = node.arguments;
        const specifier = first && ts.isStringLiteralLike(first) ? first.text : '<computed>';
        found.push({ kind: isImport ? 'dynamic-import' : 'require', specifier, line: lineOf(source, node) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Uses of the named globals as values (not `x.process`, not `{ process: … }` keys), with their lines. */
export function globalUses(file: string, names: readonly string[]): Array<{ name: string; line: number }> {
  const source = parse(file);
  const wanted = new Set(names);
  const found: Array<{ name: string; line: number }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && wanted.has(node.text)) {
      const parent = node.parent;
      const isMemberName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isPropertyAssignment(parent) && parent.name === node) ||
        (ts.isMethodDeclaration(parent) && parent.name === node);
      if (!isMemberName) found.push({ name: node.text, line: lineOf(source, node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

export function isBare(specifier: string): boolean {
  return !/^(?:\.{1,2}\/|\/|[a-z][a-z0-9+.-]*:)/i.test(specifier) || specifier.startsWith('node:');
}
