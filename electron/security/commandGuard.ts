/**
 * The guard in front of the local run_command tool. It sees an argv array — never a shell
 * string — and refuses commands that are configured away or plainly dangerous.
 *
 * It is a tripwire, not a sandbox: a permitted interpreter can still do anything its arguments
 * tell it to (`perl -e system(…)`, a copy of sh under another name, the dynamic loader running
 * /bin/sh). It exists so the obvious disasters (sudo, `rm -rf /`, `mkfs`, a shell string that
 * would slip past this very check) are refused with a reason before any process starts. The
 * boundary is the OS sandbox run_command runs in (electron/sandbox/); without one, every call
 * asks a person.
 *
 * Executables are compared by the basename given, and by the basename and real path of what
 * that name resolves to on PATH — so `/usr/bin/sudo`, `./sudo-link` and `sudo` are all sudo.
 * Built-in refusals cannot be overridden by the allow list. Note that allowing a wrapper
 * (`env`, `xargs`, `find -exec`, …) allows whatever it runs, except the built-in refusals and
 * deny-listed names, which are also checked against the commands it would run.
 */
import { constants } from 'node:fs';
import { access, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, delimiter, isAbsolute, posix, resolve, win32 } from 'node:path';

export interface CommandGuardConfig {
  /** Executable basenames or absolute paths. When set, anything else is refused. */
  allow?: string[];
  deny?: string[];
  /** Refuses the command when any argument (not the executable) matches one of these. */
  denyArgPatterns?: RegExp[];
}

export type CommandGuardResult = { ok: true } | { ok: false; reason: string; rule: string };

export interface CommandGuardContext {
  /** Where a relative executable path is resolved. Default: process.cwd(). */
  cwd?: string;
  /** The PATH the command will run with. Default: process.env.PATH. */
  path?: string;
}

interface Executable {
  /** Normalized names to compare against: the given basename and the resolved one. */
  names: Set<string>;
  /** Absolute paths it is known by: as given (resolved) and its real path. */
  paths: Set<string>;
}

const SHELLS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'pdksh',
  'ash',
  'fish',
  'csh',
  'tcsh',
  'yash',
  'rbash',
]);
/**
 * Multi-call binaries act as the applet named by argv[0] (`ls` → busybox runs ls), so what a
 * name resolves to says nothing about them; only the name given counts.
 */
const MULTI_CALL = new Set(['busybox', 'toybox', 'coreutils']);
const WINDOWS_SHELLS = new Set(['pwsh', 'powershell']);
const PRIVILEGE = new Set(['sudo', 'su', 'doas', 'pkexec', 'runas', 'sudoedit']);
const FORMATTERS = new Set(['mke2fs', 'wipefs']);
/** Commands that run another command given in their arguments. */
const WRAPPERS = new Set([
  'env',
  'nice',
  'nohup',
  'timeout',
  'stdbuf',
  'xargs',
  'time',
  'ionice',
  'setsid',
  'chroot',
  'unshare',
  'command',
  'exec',
  'busybox',
  'watch',
  'flock',
  'chrt',
  'taskset',
  'script',
]);
const RAW_DISK =
  /(^|[=:,\s])\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|dm-\d|md\d|mapper\/)/;
const FORK_BOMB = /(\S+)\s*\(\s*\)\s*\{[^}]*?\1\s*\|\s*\1\s*&/;
const URL_ARG = /^[a-z][a-z0-9+.-]*:\/\//i;

function normalizeName(name: string): string {
  const base = (name.includes('\\') ? win32.basename(name) : basename(name)).toLowerCase();
  // Windows resolves "cmd" and "CMD.EXE" to the same program.
  return base.replace(/\.(exe|com|bat|cmd)$/, '');
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path the executable resolves to, as spawn would find it; undefined if not found. */
export async function resolveExecutable(exe: string, context: CommandGuardContext = {}): Promise<string | undefined> {
  const cwd = context.cwd ?? process.cwd();
  if (exe.includes('/') || exe.includes('\\')) {
    const abs = resolve(cwd, exe);
    return (await isExecutableFile(abs)) ? abs : undefined;
  }
  for (const dir of (context.path ?? process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = resolve(cwd, dir, exe);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

async function describeExecutable(exe: string, context: CommandGuardContext): Promise<Executable> {
  const names = new Set([normalizeName(exe)]);
  const paths = new Set<string>();
  if (isAbsolute(exe)) paths.add(resolve(exe));
  const found = await resolveExecutable(exe, context);
  if (found) {
    paths.add(found);
    const real = await realpath(found).catch(() => found);
    paths.add(real);
    for (const name of [normalizeName(found), normalizeName(real)]) if (!MULTI_CALL.has(name)) names.add(name);
  }
  return { names, paths };
}

/** Whether a configured entry (a basename or an absolute path) names this executable. */
async function listMatches(entries: readonly string[], exe: Executable): Promise<string | undefined> {
  for (const entry of entries) {
    if (entry.includes('/') || entry.includes('\\')) {
      const abs = resolve(entry);
      const real = await realpath(abs).catch(() => abs);
      if (exe.paths.has(abs) || exe.paths.has(real)) return entry;
    } else if (exe.names.has(normalizeName(entry))) {
      return entry;
    }
  }
  return undefined;
}

function refuse(rule: string, reason: string): CommandGuardResult {
  return { ok: false, rule, reason };
}

/** Splits arguments into option letters/words and operands (everything after `--` is an operand). */
function parseOptions(args: readonly string[]): { short: Set<string>; long: Set<string>; operands: string[] } {
  const short = new Set<string>();
  const long = new Set<string>();
  const operands: string[] = [];
  let optionsEnded = false;
  for (const arg of args) {
    if (!optionsEnded && arg === '--') optionsEnded = true;
    else if (!optionsEnded && arg.startsWith('--')) long.add(arg.slice(2).split('=')[0] ?? '');
    else if (!optionsEnded && arg.startsWith('-') && arg.length > 1) for (const c of arg.slice(1)) short.add(c);
    else operands.push(arg);
  }
  return { short, long, operands };
}

/** The options before the first operand (a wrapper's own options, not its command's). */
function leadingOptions(args: readonly string[]): string[] {
  const end = args.findIndex((a) => !a.startsWith('-'));
  return args.slice(0, end === -1 ? args.length : end);
}

/** `/`, `/*`, `~`, `~/`, `$HOME`, the home folder itself, and spellings like `//` or `/./`. */
function isCriticalTarget(target: string): boolean {
  const t = target.trim();
  if (t === '') return false;
  if (/^(~|\$HOME|\$\{HOME\})(\/\*?)?\/?$/.test(t)) return true;
  if (t === '*' || t === '.*') return false; // relative globs are literal without a shell
  if (/^[a-zA-Z]:[\\/]?\*?$/.test(t)) return true; // a Windows drive root
  const stripped = t.endsWith('/*') ? t.slice(0, -2) || '/' : t;
  if (!stripped.startsWith('/')) return false;
  const normal = posix.normalize(stripped).replace(/\/+$/, '') || '/';
  const home = homedir().replace(/\/+$/, '');
  return normal === '/' || normal === home;
}

/** The built-in refusals, checked against every name the executable is known by. */
function builtinRefusal(names: ReadonlySet<string>, args: readonly string[]): CommandGuardResult | undefined {
  const is = (...candidates: string[]) => candidates.some((c) => names.has(c));
  const any = (set: ReadonlySet<string>) => [...names].some((n) => set.has(n));
  const display = [...names][0] ?? '';

  if (any(PRIVILEGE))
    return refuse(
      'privilege-escalation',
      `"${display}" runs a command with other privileges; the agent may not escalate privileges.`,
    );

  if ([...names].some((n) => n.startsWith('mkfs')) || any(FORMATTERS)) {
    return refuse(
      'format-filesystem',
      `"${display}" creates or wipes a file system and destroys the data on the device.`,
    );
  }

  const opts = parseOptions(args);
  if (is('rm')) {
    if (opts.long.has('no-preserve-root')) {
      return refuse(
        'rm-no-preserve-root',
        'rm --no-preserve-root disables the protection against deleting the whole file system.',
      );
    }
    const recursive = opts.short.has('r') || opts.short.has('R') || opts.long.has('recursive');
    const target = opts.operands.find(isCriticalTarget);
    if (recursive && target !== undefined) {
      return refuse('rm-recursive-root', `rm would recursively delete "${target}" (the root or home folder).`);
    }
  }

  if (is('chmod', 'chown', 'chgrp')) {
    const recursive = opts.short.has('R') || opts.long.has('recursive');
    const target = opts.operands.find(isCriticalTarget);
    if (recursive && target !== undefined) {
      return refuse(
        'recursive-permission-change-root',
        `${display} -R on "${target}" would change the permissions of the whole file system or home folder.`,
      );
    }
  }

  if (is('dd')) {
    const out = args.find((a) => a.startsWith('of=/dev/'));
    if (out && !/^of=\/dev\/(null|zero|stdout|stderr|fd\/\d+)$/.test(out)) {
      return refuse('dd-to-device', `dd would write to the device ${out.slice(3)}, overwriting it.`);
    }
  }

  const shell = any(SHELLS) || any(WINDOWS_SHELLS) || is('cmd');
  if (shell) {
    const commandFlag = args.find((a) =>
      is('cmd')
        ? /^\/[ck]$/i.test(a)
        : any(WINDOWS_SHELLS)
          ? /^-(c|command|e|ec|encodedcommand)$/i.test(a)
          : /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === '--command',
    );
    if (commandFlag !== undefined) {
      return refuse(
        'shell-command-string',
        `"${display} ${commandFlag}" runs a shell command string, which would bypass this argv guard. Run the program directly instead.`,
      );
    }
    if (args.some((a) => URL_ARG.test(a))) {
      return refuse('shell-remote-script', `"${display}" was given a URL; running a downloaded script is not allowed.`);
    }
  }

  // Programs that hand a string to a shell themselves.
  if (is('watch') || (is('script', 'flock') && (opts.short.has('c') || opts.long.has('command')))) {
    return refuse(
      'shell-command-string',
      `"${display}" runs its command through a shell string, which would bypass this argv guard.`,
    );
  }
  const envOptions = is('env') ? leadingOptions(args) : [];
  if (envOptions.some((a) => /^-[a-zA-Z]*S/.test(a) || a.startsWith('--split-string'))) {
    return refuse('shell-command-string', 'env -S splits a string into a command, which would bypass this argv guard.');
  }

  const bomb = args.find((a) => FORK_BOMB.test(a));
  if (bomb !== undefined) return refuse('fork-bomb', 'An argument contains a fork bomb.');

  const disk = args.find((a) => RAW_DISK.test(a));
  if (disk !== undefined)
    return refuse(
      'raw-disk-device',
      `An argument refers to a raw disk device ("${disk}"); writing there destroys the file system.`,
    );

  return undefined;
}

/**
 * Commands that run other commands (`env sudo …`, `xargs rm …`, `find -exec …`): the inner
 * command is not parsed precisely, so every suffix that starts like a command is checked too.
 */
function nestedCommands(names: ReadonlySet<string>, args: readonly string[]): string[][] {
  const out: string[][] = [];
  if ([...names].some((n) => WRAPPERS.has(n))) {
    for (let i = 0; i < args.length; i++) out.push(args.slice(i));
  }
  if (names.has('find')) {
    args.forEach((a, i) => {
      if (/^-(exec|execdir|ok|okdir)$/.test(a)) out.push(args.slice(i + 1));
    });
  }
  return out;
}

function checkShape(argv: readonly string[]): CommandGuardResult | undefined {
  if (!Array.isArray(argv) || argv.length === 0)
    return refuse('invalid-argv', 'The command is empty; give [executable, ...args].');
  if (argv.some((a) => typeof a !== 'string'))
    return refuse('invalid-argv', 'Every element of the command must be a string.');
  if (argv[0] === '' || (argv[0] ?? '').trim() === '') return refuse('invalid-argv', 'The executable name is empty.');
  if (argv.some((a) => a.includes('\0'))) return refuse('invalid-argv', 'The command contains a NUL byte.');
  return undefined;
}

function sanitizedRegExp(pattern: RegExp): RegExp {
  // A /g or /y pattern keeps lastIndex between test() calls and would skip matches.
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
}

/** Checks `[executable, ...args]`. Resolves the executable on PATH, hence async. */
export async function checkCommand(
  argv: readonly string[],
  config: CommandGuardConfig = {},
  context: CommandGuardContext = {},
): Promise<CommandGuardResult> {
  const shape = checkShape(argv);
  if (shape) return shape;
  const [exe = '', ...args] = argv;
  const executable = await describeExecutable(exe, context);

  const denied = config.deny ? await listMatches(config.deny, executable) : undefined;
  if (denied !== undefined) return refuse('deny-list', `"${exe}" is on the command deny list (as "${denied}").`);

  if (config.allow && (await listMatches(config.allow, executable)) === undefined) {
    return refuse(
      'allow-list',
      `"${exe}" is not on the command allow list. Allowed: ${config.allow.join(', ') || '(none)'}.`,
    );
  }

  const direct = builtinRefusal(executable.names, args);
  if (direct) return direct;

  for (const nested of nestedCommands(executable.names, args)) {
    const [inner, ...innerArgs] = nested;
    if (inner === undefined || inner.startsWith('-')) continue;
    const innerNames = new Set([normalizeName(inner)]);
    const refusal = builtinRefusal(innerNames, innerArgs);
    if (refusal) return refusal;
    if (
      config.deny &&
      (await listMatches(config.deny, {
        names: innerNames,
        paths: new Set(isAbsolute(inner) ? [resolve(inner)] : []),
      })) !== undefined
    ) {
      return refuse('deny-list', `"${inner}" (run through "${exe}") is on the command deny list.`);
    }
  }

  for (const pattern of config.denyArgPatterns ?? []) {
    const re = sanitizedRegExp(pattern);
    const hit = args.find((a) => re.test(a));
    if (hit !== undefined)
      return refuse('deny-arg-pattern', `An argument matches the refused pattern ${pattern.toString()}.`);
  }

  return { ok: true };
}
