/** What the OS offers to confine a local command, as detected once per process. */

type SandboxKind = 'bwrap' | 'sandbox-exec' | 'none';

export interface SandboxInfo {
  kind: SandboxKind;
  /** The absolute path of the sandbox program (bwrap, sandbox-exec); absent for `none`. */
  executable?: string;
  /** For people: what confines commands, or why nothing does. */
  detail: string;
}

/** What one sandboxed command may touch. Every path is absolute and real (symlinks resolved). */
export interface SandboxPolicy {
  /** The only folders the command may write to (the workspace roots); readable even inside a masked folder. */
  writable: readonly string[];
  /** Folders the command must not see at all: the app's data folder, the home folder, … */
  masked: readonly string[];
  /** Whether the command may open network connections. */
  network: boolean;
  /** The working folder, inside the workspace. */
  cwd: string;
}

/** A command to spawn in place of the original argv. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  /** Variables set on top of the command's environment (e.g. TMPDIR pointing into the sandbox). */
  env: Record<string, string>;
}
