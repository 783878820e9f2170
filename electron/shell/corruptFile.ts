/**
 * Moving a file the app cannot read aside instead of overwriting it: the user keeps the bytes
 * (to recover by hand) and the app starts clean. `<file>.corrupt-<timestamp>[-n]`.
 */
import { access, rename } from 'node:fs/promises';

export async function moveAside(file: string, now: () => number = Date.now): Promise<string> {
  const stamp = new Date(now()).toISOString().replace(/[:.]/g, '-');
  let target = `${file}.corrupt-${stamp}`;
  for (let n = 1; await exists(target); n++) target = `${file}.corrupt-${stamp}-${n}`;
  await rename(file, target);
  return target;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
