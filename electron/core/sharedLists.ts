/**
 * Live refresh of the lists several cores on one PostgreSQL share: the permission rules and the
 * tool pins. Each core announces its saves on `mh_lists` (postgresRuleStore.ts `announce`); here
 * a core hears the others', reads the list again, takes it into its engine or pins, and tells its
 * GUI with the usual `permissions.changed`, so the Permissions view and the next call's decision
 * follow a rule saved, or a pin approved, on another instance — without a restart. After the
 * listening connection comes back (notices sent meanwhile are lost) both are read again.
 */
import type { Listener, Notice } from '../storage/postgres/notify.js';
import { listen } from '../storage/postgres/notify.js';
import { redactDatabaseUrls } from '../storage/postgres/url.js';
import type { PermissionDecisionEngine } from '../security/permissions.js';
import type { ToolPins } from '../security/pins.js';
import type { PostgresPinStore } from '../security/postgresPinStore.js';

export interface SharedListParts {
  url: string;
  /** This core's name in its notices: its own echo is ignored. */
  origin: string;
  engine: PermissionDecisionEngine;
  pinStore: PostgresPinStore | undefined;
  pins: ToolPins | undefined;
  /** The GUI's `permissions.changed`. */
  changed(): void;
  /** A list could not be read again (the database is away): told, and read at the next notice or resync. */
  warn(message: string): void;
}

export async function followSharedLists(parts: SharedListParts): Promise<Listener> {
  // One refresh of each kind at a time; a notice during one asks for one more after it.
  const failed = (kind: 'rules' | 'pins') => (error: unknown) =>
    parts.warn(
      `The ${kind === 'rules' ? 'permission rules' : 'tool pins'} changed on another instance but could not be read again: ${redactDatabaseUrls(error instanceof Error ? error.message : String(error))}`,
    );
  const refreshers = {
    rules: serial(async () => {
      if (await parts.engine.reload()) parts.changed();
    }, failed('rules')),
    pins: serial(async () => {
      if (!parts.pinStore || !parts.pins) return;
      await parts.pinStore.refresh();
      parts.pins.reload();
      parts.changed();
    }, failed('pins')),
  };
  const run = (kind: keyof typeof refreshers): void => refreshers[kind]();
  return listen(
    parts.url,
    ['mh_lists'],
    (_channel, notice: Notice) => {
      if (notice.from === parts.origin) return;
      if (notice.kind === 'rules' || notice.kind === 'pins') run(notice.kind);
    },
    () => {
      run('rules');
      run('pins');
    },
  );
}

/**
 * `task` never runs twice at once; asked while running, it runs once more afterwards. Every
 * failure, the re-run's too, goes to `failed` (a refresh that fails unseen leaves a list stale).
 */
function serial(task: () => Promise<void>, failed: (error: unknown) => void): () => void {
  let running = false;
  let again = false;
  const start = (): void => {
    running = true;
    void task()
      .catch(failed)
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          start();
        }
      });
  };
  return () => {
    if (running) again = true;
    else start();
  };
}
