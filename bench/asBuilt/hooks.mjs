/**
 * Module hooks for register.mjs: a relative `./x.js` that names a TypeScript file resolves to
 * `./x.ts` (the project's import style); `.ts` files are compiled by esbuild as the app's build
 * does (ES module, no keepNames; inline source map for stacks).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export async function resolve(specifier, context, nextResolve) {
  if ((specifier.startsWith('.') || specifier.startsWith('file:')) && specifier.endsWith('.js') && context.parentURL) {
    const url = new URL(specifier, context.parentURL);
    if (!existsSync(fileURLToPath(url))) {
      const ts = new URL(url.href.replace(/\.js$/, '.ts'));
      if (existsSync(fileURLToPath(ts))) return nextResolve(ts.href, context);
    }
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { source } = await nextLoad(url, { ...context, format: 'module' });
  const out = await transform(String(source), {
    loader: 'ts',
    format: 'esm',
    target: `node${process.versions.node}`,
    platform: 'node',
    sourcefile: path,
    sourcemap: 'inline',
    keepNames: false,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: false } },
  });
  return { format: 'module', source: out.code, shortCircuit: true };
}
