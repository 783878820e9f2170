/** The contract's `app.*` part: what the GUI learns about the app itself, and its warnings. */
import { z } from 'zod';
import { SandboxReasonSchema } from '../errors.js';
import { AppWarningSchema } from './warnings.js';
import type { DomainChannels, DomainEvents } from './common.js';
import { Empty, channel } from './common.js';

const SecretBackendSchema = z.object({
  /** `safeStorage` (Electron), `keyring` (OS secret service), `file` (0600 file, browser mode fallback). */
  kind: z.enum(['safeStorage', 'keyring', 'file']),
  /** False when secrets are not encrypted by the OS (Linux `basic_text`, or the file fallback). */
  secure: z.boolean(),
  /** Shown in the GUI when not secure. */
  warning: z.string().optional(),
});

/**
 * What confines run_command (sandbox-runtime over bubblewrap on Linux, over sandbox-exec on macOS),
 * or nothing (every call asks): then `reason` says why, as a code.
 */
const SandboxInfoSchema = z.object({
  kind: z.enum(['bwrap', 'sandbox-exec', 'none']),
  reason: SandboxReasonSchema.optional(),
  /** For people: what it confines, or why there is no sandbox. */
  detail: z.string(),
});

const AppInfoSchema = z.object({
  mode: z.enum(['electron', 'browser']),
  version: z.string(),
  secretBackend: SecretBackendSchema,
  sandbox: SandboxInfoSchema,
  /** Warnings to show once (a damaged file that was moved aside, …). */
  warnings: z.array(AppWarningSchema),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

export const appChannels = {
  'app.info': channel(Empty, AppInfoSchema),
} as const satisfies DomainChannels;

export const appEvents = {
  /** The startup warnings changed (a damaged file found after start, e.g. a tool cache): the whole list. */
  'app.warnings': z.object({ warnings: z.array(AppWarningSchema) }),
  /**
   * Browser mode: events the host did not send because this page was not reading fast enough.
   * For `server.log`, `count` lines of `serverId` were dropped; for any other event the page
   * should reload what it shows.
   */
  'bridge.dropped': z.object({
    event: z.string(),
    serverId: z.string().optional(),
    count: z.number().int().positive(),
  }),
} as const satisfies DomainEvents;
