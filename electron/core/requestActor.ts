/**
 * Who asked for the contract request being handled, when it is not the page's own person (`gui`):
 * a person signed in to `miniharness serve`, or the command line ("CLI"). The host sets it around
 * `core.dispatch` (electron/web/host.ts); the GUI's tool calls are then recorded under that name
 * in History and Traces (callService.ts), in the GUI's session. Carried by AsyncLocalStorage, so no
 * handler's signature changes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const actor = new AsyncLocalStorage<string>();

export function runAsActor<T>(name: string | undefined, fn: () => T): T {
  return name === undefined ? fn() : actor.run(name, fn);
}

export function currentActor(): string | undefined {
  return actor.getStore();
}
