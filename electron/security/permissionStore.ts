/**
 * Where permission rules live between runs. The JSON file store writes atomically (a crash
 * mid-write leaves the old file) and never silently replaces a file it cannot read: a corrupt
 * file is moved aside, reported, and the app starts with no saved rules.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { FileDamagedWarning } from '../../shared/contract/warnings.js';
import type { DamageProblem } from '../storage/damagedFile.js';
import { moveAside } from '../storage/damagedFile.js';
import { PRIVATE_FILE_MODE, ensurePrivateDir, makePrivate } from '../storage/privateFiles.js';
import { PermissionRulesCorruptError } from './errors.js';
import type { PermissionRule } from './permissions.js';
import { PermissionRuleSchema } from './permissions.js';
import { describeZodIssues } from './zodIssues.js';

export interface PermissionRuleStore {
  load(): Promise<PermissionRule[]>;
  save(rules: PermissionRule[]): Promise<void>;
}

export const RULES_FILE_VERSION = 1;

/** The saved rules as a whole: a version and rules with distinct ids (the file here; PostgreSQL's row: postgresRuleStore.ts). */
export const RulesFileSchema = z
  .object({
    version: z.literal(RULES_FILE_VERSION),
    rules: z.array(PermissionRuleSchema),
  })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.rules.forEach((rule, i) => {
      if (seen.has(rule.id))
        ctx.addIssue({ code: 'custom', path: ['rules', i, 'id'], message: `duplicate rule id "${rule.id}"` });
      seen.add(rule.id);
    });
  });

export interface JsonFileRuleStoreOptions {
  /** Told when a corrupt file was moved aside (show it to the user). */
  onCorrupt?: (error: PermissionRulesCorruptError) => void;
  /** The same, as the GUI's `file_damaged` warning (only when the file was moved aside). */
  onDamaged?: (warning: FileDamagedWarning) => void;
  /** Clock for the `.corrupt-<timestamp>` suffix. */
  now?: () => number;
}

export class JsonFilePermissionRuleStore implements PermissionRuleStore {
  private corruptError: PermissionRulesCorruptError | undefined;

  constructor(
    readonly file: string,
    private readonly options: JsonFileRuleStoreOptions = {},
  ) {}

  /** The problem found by the last `load()`, if the file was corrupt. */
  get corruption(): PermissionRulesCorruptError | undefined {
    return this.corruptError;
  }

  async load(): Promise<PermissionRule[]> {
    this.corruptError = undefined;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      if ((error as NodeJS.ErrnoException).code === 'EISDIR') return this.setAside('it is a folder', 'invalid_content');
      // Unreadable is not corrupt: moving it aside could hide a permissions problem on the folder.
      throw new Error(
        `Could not read the permission rules file "${this.file}" (${(error as NodeJS.ErrnoException).code ?? 'error'}). Check its permissions.`,
        {
          cause: error,
        },
      );
    }
    makePrivate(this.file);
    if (text.length === 0) return this.setAside('it is empty', 'empty');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      // The parser's message quotes the file's text; say only that it is not JSON.
      return this.setAside('it is not valid JSON', 'not_json');
    }
    const parsed = RulesFileSchema.safeParse(data);
    if (!parsed.success) return this.setAside(describeZodIssues(parsed.error), 'invalid_content');
    return parsed.data.rules;
  }

  async save(rules: PermissionRule[]): Promise<void> {
    const body = RulesFileSchema.parse({ version: RULES_FILE_VERSION, rules });
    ensurePrivateDir(dirname(this.file));
    await writeFileAtomic(this.file, `${JSON.stringify(body, null, 2)}\n`, {
      encoding: 'utf8',
      mode: PRIVATE_FILE_MODE,
    });
  }

  private setAside(detail: string, problem: DamageProblem): PermissionRule[] {
    let movedTo: string | undefined;
    try {
      movedTo = moveAside(this.file, this.options.now ? { now: this.options.now } : {});
    } catch {
      movedTo = undefined;
    }
    const error = new PermissionRulesCorruptError(this.file, movedTo, detail);
    this.corruptError = error;
    this.options.onCorrupt?.(error);
    if (!movedTo) throw error; // still in place: refusing to start lets nothing overwrite it later
    this.options.onDamaged?.({ code: 'file_damaged', file: this.file, movedTo, lost: 'permission_rules', problem });
    return [];
  }
}
