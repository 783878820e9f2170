/**
 * The app's warnings as data (a damaged file moved aside, a one-time notice): what storage/ and
 * security/ report and the GUI words by `code`. Its own file, so the stores that report a
 * damaged file need not import the whole wire contract.
 */
import { z } from 'zod';

/** What a damaged file held, and so what the app started without. */
const DamagedFileLossSchema = z.enum(['settings', 'history', 'permission_rules', 'secrets', 'tool_cache']);
export type DamagedFileLoss = z.infer<typeof DamagedFileLossSchema>;

/**
 * A startup warning, as data: the GUI words it by `code`. `file_damaged`: a file the app could
 * not read was moved aside (kept, timestamped) and the app started without its content.
 * `notice`: any other one-time message (already worded, secrets redacted). `disk_full`: lasts
 * only while it is true.
 */
export const AppWarningSchema = z.discriminatedUnion('code', [
  z.object({
    code: z.literal('file_damaged'),
    /** The damaged file's path. */
    file: z.string(),
    /** Where its bytes are now. */
    movedTo: z.string(),
    lost: DamagedFileLossSchema,
    /** `not_json` / `invalid_content` (JSON of the wrong shape) / `not_sqlite` / `empty` (0 bytes). */
    problem: z.enum(['not_json', 'invalid_content', 'not_sqlite', 'empty']),
  }),
  z.object({ code: z.literal('notice'), message: z.string() }),
  /**
   * A write to the database failed because its disk is full: calls that ran could not record
   * their results (they read "result unknown" in History). Listed while it lasts: gone with the
   * first write that succeeds again.
   */
  z.object({ code: z.literal('disk_full'), file: z.string() }),
]);
export type AppWarning = z.infer<typeof AppWarningSchema>;
export type FileDamagedWarning = Extract<AppWarning, { code: 'file_damaged' }>;
