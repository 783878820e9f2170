/** The app's own tools, all confined to the configured folders. */
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
  /** Folders no tool may see even when inside or beside the roots (the app's data folder). */
  excluded?: readonly string[];
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
  const tools: LocalTool[] = [
    createReadFileTool({ roots, ...(options.maxReadBytes !== undefined ? { maxReadBytes: options.maxReadBytes } : {}) }),
    createWriteFileTool({ roots, ...(options.maxWriteBytes !== undefined ? { maxWriteBytes: options.maxWriteBytes } : {}) }),
    createListDirectoryTool({ roots, ...(options.maxListEntries !== undefined ? { maxEntries: options.maxListEntries } : {}) }),
  ];
  if (options.command !== false) {
    tools.push(createRunCommandTool({ ...(options.command ?? {}), roots, ...(options.excluded ? { excluded: options.excluded } : {}), ...(options.commandGuard ? { commandGuard: options.commandGuard } : {}) }));
  }
  return tools;
}
