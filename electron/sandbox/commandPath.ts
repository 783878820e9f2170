/**
 * Where a server's command is, found on the host as `spawn` would find it (a name is looked up on
 * the PATH the server is given; a path with a slash is taken from its working folder), before it
 * enters the sandbox: the sandbox must make its folder readable (a program under the home folder
 * is hidden otherwise), and the inner shell then runs that exact file.
 *
 * Also the scripts among its arguments that exist (for `node` / `python` launchers: the script a
 * server is, often under the home folder) with the package they belong to.
 */
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function realOf(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

export interface ResolvedCommand {
  given: string;
  /** Absolute; absent when nothing was found (spawning it then fails as it would unsandboxed). */
  path?: string;
  real?: string;
}

export function resolveCommand(command: string, pathVariable: string | undefined, cwd: string): ResolvedCommand {
  if (command.includes('/')) {
    const path = resolve(cwd, command);
    return executable(path) ? { given: command, path, real: realOf(path) ?? path } : { given: command };
  }
  for (const folder of (pathVariable ?? '').split(delimiter)) {
    if (!folder) continue;
    const path = resolve(cwd, folder, command);
    if (executable(path)) return { given: command, path, real: realOf(path) ?? path };
  }
  return { given: command };
}

/** The nearest folder at or above `file`'s that holds a package.json or pyproject.toml, if any. */
function packageRootOf(file: string): string | undefined {
  let folder = dirname(file);
  for (;;) {
    if (existsSync(join(folder, 'package.json')) || existsSync(join(folder, 'pyproject.toml'))) return folder;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

/** The arguments that name existing files (absolute, or relative to the working folder), resolved. */
export function scriptsAmong(args: readonly string[], cwd: string): { path: string; packageRoot?: string }[] {
  const scripts: { path: string; packageRoot?: string }[] = [];
  for (const arg of args) {
    if (arg.startsWith('-') || arg.includes('\0')) continue;
    const candidate = isAbsolute(arg) ? arg : resolve(cwd, arg);
    try {
      if (!statSync(candidate).isFile()) continue;
    } catch {
      continue;
    }
    const path = realOf(candidate) ?? candidate;
    const packageRoot = packageRootOf(path);
    scripts.push(packageRoot ? { path, packageRoot } : { path });
  }
  return scripts;
}
