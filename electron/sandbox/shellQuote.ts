/**
 * A server's argv as the one shell command sandbox-runtime runs (`<shell> -c <text>` inside the
 * sandbox): every word single-quoted, so the shell gives the program exactly the argv it was
 * configured with. Inside POSIX single quotes every byte is literal — spaces, `$`, backticks,
 * double quotes, backslashes, newlines, non-ASCII; a single quote itself is closed, written as
 * `"'"`, and reopened. `exec` makes the server the shell's successor (its pid, its exit code,
 * its signals). Assignments before it set the server's variables (e.g. its TMPDIR).
 *
 * A NUL cannot be part of an argument (argv is NUL-terminated) nor of a `-c` string: refused.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class ShellQuoteError extends Error {
  constructor(readonly code: 'nul_in_argument' | 'empty_command' | 'option_as_command' | 'bad_variable_name') {
    super(`The server's command cannot be passed to the sandbox (${code}).`);
    this.name = 'ShellQuoteError';
  }
}

function quoteWord(word: string): string {
  if (word.includes('\0')) throw new ShellQuoteError('nul_in_argument');
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}

/** `export NAME='value'; … exec 'argv0' 'argv1' …` — parsed back by any POSIX shell into exactly `argv`. */
export function execCommandLine(argv: readonly string[], env: Readonly<Record<string, string>> = {}): string {
  if (argv.length === 0 || argv[0] === '') throw new ShellQuoteError('empty_command');
  // `exec -x` would be an option to bash's exec (dash takes no `--` to end them): the caller
  // passes the resolved, absolute program.
  if (argv[0]?.startsWith('-')) throw new ShellQuoteError('option_as_command');
  const assignments = Object.entries(env).map(([name, value]) => {
    if (!NAME.test(name)) throw new ShellQuoteError('bad_variable_name');
    return `export ${name}=${quoteWord(value)}; `;
  });
  return `${assignments.join('')}exec ${argv.map(quoteWord).join(' ')}`;
}
