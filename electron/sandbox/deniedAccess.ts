/**
 * Which access a sandboxed server was denied, when its own words say so (issue 29): a server that
 * dies at start under the sandbox usually names the file it could not open on stderr. A path
 * there that the profile hides (under a denied folder, not under an allowed one) is turned into
 * the narrowest change that would let it read it — "allow reading ~/.config/foo" — for the
 * error's details; the person decides.
 */
import { posix } from 'node:path';
import type { ServerSandboxProfile } from './serverProfile.js';

/** Absolute POSIX paths in text, as programs quote them ('…', "…", `…`, or bare), up to a separator. */
const PATH_IN_TEXT = /(?<![\w.~-])\/[^\s'"`:;,()<>[\]{}]+/g;

function isUnder(path: string, folder: string): boolean {
  const rel = posix.relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !posix.isAbsolute(rel));
}

/**
 * The folder (or file) to allow reading for the first hidden path the lines name: two levels
 * below the denied folder it is in (~/.config/foo for ~/.config/foo/settings.json), or the path
 * itself when it is right in it (~/notes.txt). Undefined when no line names a hidden path.
 */
export function deniedReadIn(
  lines: readonly string[],
  profile: Pick<ServerSandboxProfile, 'read'>,
  /** Never offered, whatever a server asks: the app's data folder (its secrets, database), the runtime folder. */
  never: readonly string[],
): string | undefined {
  for (const line of lines) {
    for (const match of line.matchAll(PATH_IN_TEXT)) {
      const path = posix.normalize(match[0].replace(/[.]+$/, ''));
      if (profile.read.allow.some((allowed) => isUnder(path, allowed))) continue;
      if (never.some((folder) => isUnder(path, folder)) || profile.read.deny.includes(path)) continue;
      const denied = profile.read.deny.filter((folder) => isUnder(path, folder)).sort((a, b) => b.length - a.length)[0];
      if (!denied) continue;
      const parts = posix.relative(denied, path).split('/');
      return posix.join(denied, ...parts.slice(0, Math.max(1, Math.min(2, parts.length - 1))));
    }
  }
  return undefined;
}
