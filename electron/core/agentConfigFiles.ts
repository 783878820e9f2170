/**
 * "Add to …" in Connect an agent: the gateway's entry written into an agent application's own
 * config file (Claude Desktop, VS Code's user mcp.json, Cursor, Claude Code's ~/.claude.json).
 *
 * - Everything else in the file stays byte for byte: the entry goes in as one text edit at its
 *   place (jsonc-parser's tree for the offsets, `applyEdits`), so comments, trailing commas, key
 *   order and indentation survive. (jsonc-parser's `modify` with formatting re-formats the lines
 *   around the edit — a neighbouring one-line entry came out re-indented — hence the edit here.)
 *   The file is read with the options the importer uses.
 * - The old bytes go to a backup beside the file first; the new text replaces the file atomically
 *   (write-file-atomic: a temporary file renamed over it, the file's mode kept).
 * - Undo puts the old bytes back (or removes a file that did not exist), but only while the file
 *   is still exactly what "Add to" wrote: a client that changed it since is not overwritten.
 * - A file that does not parse, or whose servers section is not an object, is left untouched and
 *   the error (a code of the contract) says why.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, posix, win32 } from 'node:path';
import type { Edit, Node, ParseError } from 'jsonc-parser';
import { applyEdits, findNodeAtLocation, parseTree, printParseErrorCode } from 'jsonc-parser';
import writeFileAtomic from 'write-file-atomic';
import type { AgentClient, AgentConfigEntry, ClientConfigWrite } from '../../shared/agentConfigs.js';
import { AppError } from './errors.js';

/** Where this user's config files are: the OS, the home folder and the environment (APPDATA, XDG_CONFIG_HOME). */
export interface ClientPlaces {
  platform: NodeJS.Platform;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** Larger than any config file a client writes (~/.claude.json grows with history, a few MB). */
const MAX_CONFIG_BYTES = 32 * 1024 * 1024;

/** The application-data folder Electron apps (Claude Desktop, VS Code) keep their settings in, per OS. */
function appDataDir(places: ClientPlaces): string {
  if (places.platform === 'win32') return places.env.APPDATA ?? win32.join(places.home, 'AppData', 'Roaming');
  if (places.platform === 'darwin') return posix.join(places.home, 'Library', 'Application Support');
  return places.env.XDG_CONFIG_HOME || posix.join(places.home, '.config');
}

/** The user-level config file each client reads, on this OS. */
export function clientConfigPath(client: AgentClient, places: ClientPlaces): string {
  const join = places.platform === 'win32' ? win32.join : posix.join;
  switch (client) {
    case 'claude-desktop':
      return join(appDataDir(places), 'Claude', 'claude_desktop_config.json');
    case 'vscode':
      return join(appDataDir(places), 'Code', 'User', 'mcp.json');
    case 'cursor':
      return join(places.home, '.cursor', 'mcp.json');
    case 'claude-code':
      return join(places.home, '.claude.json');
  }
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

interface Layout {
  eol: string;
  /** One level of indentation, as the file writes it (a tab, two or four spaces). */
  unit: string;
}

/** The file's own indentation and line ends, so the inserted entry looks like the rest. */
function layoutOf(text: string): Layout {
  return { eol: text.includes('\r\n') ? '\r\n' : '\n', unit: /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ' };
}

/** The whitespace a node's line starts with (when the node is the first thing on its line). */
function indentAt(text: string, offset: number): string | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lead = text.slice(lineStart, offset);
  return /^[ \t]*$/.test(lead) ? lead : undefined;
}

/** JSON text of a value whose first line starts at `indent`'s depth. */
function valueText(value: unknown, indent: string, layout: Layout): string {
  return JSON.stringify(value, null, layout.unit).replace(/\n/g, `${layout.eol}${indent}`);
}

/**
 * One text edit that sets `key` in the object `node` to `value` and touches nothing else: the
 * value replaced where the key is; otherwise a property inserted after the last one (so a
 * trailing comma there stays after it) or, in an empty object, the object written anew.
 */
function setProperty(text: string, node: Node, key: string, value: unknown, layout: Layout): Edit {
  const objectIndent = indentAt(text, node.offset) ?? '';
  const properties = node.children ?? [];
  const existing = properties.find((p) => p.children?.[0]?.value === key)?.children?.[1];
  if (existing) {
    const indent = indentAt(text, existing.parent!.offset) ?? objectIndent + layout.unit;
    return { offset: existing.offset, length: existing.length, content: valueText(value, indent, layout) };
  }
  const last = properties.at(-1);
  if (!last) {
    const inner = objectIndent + layout.unit;
    const content = `{${layout.eol}${inner}${JSON.stringify(key)}: ${valueText(value, inner, layout)}${layout.eol}${objectIndent}}`;
    return { offset: node.offset, length: node.length, content };
  }
  const indent = indentAt(text, last.offset) ?? objectIndent + layout.unit;
  const content = `,${layout.eol}${indent}${JSON.stringify(key)}: ${valueText(value, indent, layout)}`;
  return { offset: last.offset + last.length, length: 0, content };
}

function unreadable(path: string, why: string): AppError {
  return new AppError('agent_config_unreadable', `${path} ${why}. It was left as it was; add the entry by hand.`);
}

/** The file's text with the entry set (added, or replacing one of the same name); throws when the file is not one to edit. */
function withEntry(text: string, path: string, entry: AgentConfigEntry): { text: string; replaced: boolean } {
  const layout = layoutOf(text);
  const base = text.trim() === '' ? `{}${layout.eol}` : text;
  const errors: ParseError[] = [];
  // The importer's options (electron/core/importer.ts planImport): comments and trailing commas allowed.
  const root = parseTree(base, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first)
    throw unreadable(path, `is not valid JSON (${printParseErrorCode(first.error)} at character ${first.offset})`);
  if (root?.type !== 'object') throw unreadable(path, 'does not hold a JSON object');
  const section = findNodeAtLocation(root, [entry.section]);
  if (section && section.type !== 'object') throw unreadable(path, `has a "${entry.section}" that is not an object`);
  const edit = section
    ? setProperty(base, section, entry.name, entry.value, layout)
    : setProperty(base, root, entry.section, { [entry.name]: entry.value }, layout);
  const replaced = !!section && findNodeAtLocation(section, [entry.name]) !== undefined;
  return { text: applyEdits(base, [edit]), replaced };
}

async function readIfThere(path: string): Promise<Buffer | undefined> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw unreadable(path, 'is not a file');
    if (info.size > MAX_CONFIG_BYTES) throw unreadable(path, 'is too large to be a config file');
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof AppError) throw error;
    throw unreadable(path, `could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

interface UndoRecord {
  path: string;
  /** Absent: the file did not exist, so Undo removes it. */
  backupPath?: string;
  /** The bytes "Add to" wrote, by hash: Undo acts only while the file still holds them. */
  written: string;
}

export class AgentConfigFiles {
  private readonly undos = new Map<string, UndoRecord>();
  /** One write at a time, so two "Add to" on one file cannot interleave their read and write. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly places: ClientPlaces,
    private readonly clock: () => number = Date.now,
  ) {}

  pathOf(client: AgentClient): string {
    return clientConfigPath(client, this.places);
  }

  add(client: AgentClient, entry: AgentConfigEntry): Promise<ClientConfigWrite> {
    return this.serial(() => this.write(client, entry));
  }

  undo(undoId: string): Promise<{ path: string }> {
    return this.serial(() => this.restore(undoId));
  }

  private serial<T>(run: () => Promise<T>): Promise<T> {
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async write(client: AgentClient, entry: AgentConfigEntry): Promise<ClientConfigWrite> {
    const path = this.pathOf(client);
    const before = await readIfThere(path);
    const text = before?.toString('utf8') ?? '';
    if (before && !before.equals(Buffer.from(text, 'utf8'))) throw unreadable(path, 'is not UTF-8 text');
    const next = withEntry(text, path, entry);
    let backupPath: string | undefined;
    let mode: number | undefined;
    if (before) {
      mode = (await stat(path)).mode & 0o777;
      backupPath = `${path}.miniharness-backup-${new Date(this.clock()).toISOString().replace(/[:.]/g, '-')}`;
      // 'wx': never over an earlier backup (two writes in one millisecond get a second name).
      await writeFile(backupPath, before, { flag: 'wx', mode }).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
        backupPath = `${backupPath}-${randomUUID().slice(0, 8)}`;
        await writeFile(backupPath, before, { flag: 'wx', mode });
      });
    } else {
      await mkdir(dirname(path), { recursive: true });
    }
    const bytes = Buffer.from(next.text, 'utf8');
    // A new file holds a token: only its owner reads it. An existing one keeps its mode (write-file-atomic's default).
    await writeFileAtomic(path, bytes, before ? {} : { mode: 0o600 });
    const undoId = randomUUID();
    this.undos.set(undoId, { path, ...(backupPath ? { backupPath } : {}), written: sha256(bytes) });
    return { client, path, ...(backupPath ? { backupPath } : {}), replaced: next.replaced, undoId };
  }

  private async restore(undoId: string): Promise<{ path: string }> {
    const record = this.undos.get(undoId);
    if (!record)
      throw new AppError(
        'not_found',
        'There is nothing to undo: that change was undone already, or the app restarted since.',
      );
    const now = await readIfThere(record.path);
    if (!now || sha256(now) !== record.written) {
      const where = record.backupPath ? ` The bytes from before are in ${record.backupPath}.` : '';
      throw new AppError(
        'agent_config_changed',
        `${record.path} changed after MiniHarness wrote it (its application may have saved it), so Undo left it as it is.${where}`,
      );
    }
    if (record.backupPath) {
      await writeFileAtomic(record.path, await readFile(record.backupPath));
      await rm(record.backupPath, { force: true });
    } else {
      await rm(record.path, { force: true });
    }
    this.undos.delete(undoId);
    return { path: record.path };
  }
}
