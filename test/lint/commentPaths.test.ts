/**
 * Every file a comment of the production code names by path exists: a comment that points at
 * `core/views.ts` after the file moved sends the next reader nowhere. A name counts when some file
 * of the repository ends with it (comments name files relative to the repository, to electron/ or
 * to their own folder); `.js` names the `.ts`/`.tsx` source as imports do. Bare file names
 * (`mcp.json`), built output (`out/`), installed packages and caches are not files of the tree.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const tracked = execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n').filter(Boolean);
const SOURCES = /^(?:electron|shared|renderer\/src|scripts|bin)\/.*\.(?:ts|tsx|mjs|mts)$/;
/** A path with at least one folder, ending in a file extension of the tree. */
const PATH = /(?<![\w@/.:-])((?:\.{1,2}\/)*(?:[\w.-]+\/)+[\w.-]+\.(?:ts|tsx|mjs|mts|js|css|json|html))\b/g;
/** Not files of the repository: built output, installed packages, caches, other programs' configs. */
const OUTSIDE = /^(?:out|node_modules|\.cache|\.vscode|dist|release)\//;

/** The comment text of a line: a whole-line comment, or what follows ` // `. */
function commentOf(line: string): string | undefined {
  const trimmed = line.trim();
  if (trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*')) return trimmed;
  const at = line.indexOf(' // ');
  return at >= 0 ? line.slice(at + 4) : undefined;
}

function exists(named: string): boolean {
  const path = named.replace(/^(?:\.{1,2}\/)+/, '');
  const candidates = path.endsWith('.js') ? [path, `${path.slice(0, -3)}.ts`, `${path.slice(0, -3)}.tsx`] : [path];
  return tracked.some((file) => candidates.some((candidate) => file === candidate || file.endsWith(`/${candidate}`)));
}

function missingCommentPaths(files: readonly string[]): string[] {
  const missing: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        const comment = commentOf(line);
        if (!comment) return;
        for (const [, named] of comment.matchAll(PATH)) {
          if (!named || OUTSIDE.test(named.replace(/^(?:\.{1,2}\/)+/, ''))) continue;
          if (!exists(named)) missing.push(`${file}:${index + 1} names ${named}`);
        }
      });
  }
  return missing;
}

describe('paths named in comments', () => {
  it('every file a production comment names by path exists', () => {
    expect(missingCommentPaths(tracked.filter((file) => SOURCES.test(file)))).toEqual([]);
  });

  it('catches a comment naming a file that moved (the check itself can fail)', () => {
    const missing = missingCommentPaths(['test/lint/commentPaths.test.ts']);
    // This very comment names one: app/views.ts (the folder became core/).
    expect(missing).toEqual([expect.stringMatching(/commentPaths\.test\.ts:\d+ names app\/views\.ts$/)]);
  });
});
