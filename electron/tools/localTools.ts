/** The app's own tools, all confined to the configured folders. */
import { isAbsolute } from 'node:path';
import type { BindingStrategy } from '../security/boundFs.js';
import type { CommandGuardConfig } from '../security/commandGuard.js';
import { createListDirectoryTool } from './listDirectory.js';
import { createReadFileTool } from './readFile.js';
import type { RunCommandToolOptions } from './runCommand.js';
import { createRunCommandTool } from './runCommand.js';
import type { LocalTool } from './types.js';
import { createWriteFileTool } from './writeFile.js';

export interface LocalToolsOptions {
  /** The folders the tools may touch; relative paths resolve against the first. */
  roots: string[];
  /**
   * Absolute folders the file tools never read, list or write, even inside a root (the app's
   * data folder), with everything below them. Compared by real path.
   */
  excluded?: readonly string[];
  /** How file access is bound to the checked path; defaults to the strongest the platform has. */
  fileBinding?: BindingStrategy;
  commandGuard?: CommandGuardConfig;
  maxReadBytes?: number;
  maxWriteBytes?: number;
  maxListEntries?: number;
  /** run_command settings; `false` leaves the tool out entirely. */
  command?: Omit<RunCommandToolOptions, 'roots' | 'commandGuard' | 'excluded'> | false;
}

export function createLocalTools(options: LocalToolsOptions): LocalTool[] {
  if (options.roots.length === 0) throw new Error('createLocalTools needs at least one allowed folder (roots).');
  // Copied so a caller mutating its array later cannot widen what the tools may reach.
  const roots = [...options.roots];
  const excluded = [...(options.excluded ?? [])];
  const relativeExcluded = excluded.find((path) => !isAbsolute(path));
  if (relativeExcluded !== undefined)
    throw new Error(`createLocalTools: excluded folders must be absolute paths (got "${relativeExcluded}").`);
  const files = { roots, excluded, ...(options.fileBinding ? { binding: options.fileBinding } : {}) };
  const tools: LocalTool[] = [
    createReadFileTool({
      ...files,
      ...(options.maxReadBytes !== undefined ? { maxReadBytes: options.maxReadBytes } : {}),
    }),
    createWriteFileTool({
      ...files,
      ...(options.maxWriteBytes !== undefined ? { maxWriteBytes: options.maxWriteBytes } : {}),
    }),
    createListDirectoryTool({
      ...files,
      ...(options.maxListEntries !== undefined ? { maxEntries: options.maxListEntries } : {}),
    }),
  ];
  if (options.command !== false) {
    tools.push(
      createRunCommandTool({
        ...(options.command ?? {}),
        roots,
        excluded,
        ...(options.commandGuard ? { commandGuard: options.commandGuard } : {}),
      }),
    );
  }
  return tools;
}
