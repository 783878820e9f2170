/**
 * The warnings the GUI shows (`app.info`, `app.warnings`): damaged files moved aside, and
 * notices. A damaged file met while the core is built (database, secrets, rules) is pushed to
 * the listeners once `start()` runs; one met later, at once. Notices are read with the list.
 * A notice often quotes a server's or a library's error text: it is redacted as it is added, so a
 * known secret in it never reaches `app.info` (a response, not an event the hub redacts).
 */
import type { AppWarning, FileDamagedWarning } from '../../shared/contract.js';
import type { EventHub } from './eventHub.js';

export class AppWarnings {
  private readonly damaged: FileDamagedWarning[];
  private readonly notices: string[];
  private started = false;
  private damagedWhileBuilding = false;

  constructor(
    private readonly hub: EventHub,
    damaged: readonly FileDamagedWarning[],
    notices: readonly string[],
    private readonly redactText: (text: string) => string,
  ) {
    this.damaged = [...damaged];
    this.notices = [...notices];
  }

  readonly notice = (message: string): void => {
    this.notices.push(this.redactText(message));
  };

  /** A damaged file found before anyone could listen (the database, opened first): listed, not pushed. */
  damagedBeforeBuild(warning: FileDamagedWarning): void {
    this.damaged.push(warning);
  }

  /** A damaged file moved aside: pushed now, or when `start()` runs. */
  readonly damagedFile = (warning: FileDamagedWarning): void => {
    this.damaged.push(warning);
    if (this.started) this.publish();
    else this.damagedWhileBuilding = true;
  };

  readonly list = (): AppWarning[] => [
    ...this.damaged,
    ...this.notices.map((message): AppWarning => ({ code: 'notice', message })),
  ];

  /** Sends the whole list to the listeners. */
  publish(): void {
    this.hub.emit('app.warnings', { warnings: this.list() });
  }

  /** The core started: a host may have asked for app.info before, so its listeners hear what was found while building. */
  start(): void {
    this.started = true;
    if (this.damagedWhileBuilding) this.publish();
  }
}
