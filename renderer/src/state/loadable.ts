/**
 * One list loaded from main, as a slice keeps it: `<name>Load` (idle → loading → ready | error)
 * and `<name>Error` (main's message when the last load failed). `loadable(name)` gives the state
 * updates for each step, so every slice words them alike and none spells the keys by hand.
 */
import { messageOf } from '../bridge/index.js';

type LoadState = 'idle' | 'loading' | 'ready' | 'error';

export type Loadable<Name extends string> = { [K in `${Name}Load`]: LoadState } & {
  [K in `${Name}Error`]: string | undefined;
};

export interface LoadSteps<Name extends string> {
  /** Nothing loaded: the initial state, and after the link to main is lost. */
  idle: Loadable<Name>;
  /** A load is under way; the last error stays until it ends (`restart` clears it too). */
  loading: Pick<Loadable<Name>, `${Name}Load`>;
  /** A load starts over: under way, and the last error is gone. */
  restart: Loadable<Name>;
  ready: Loadable<Name>;
  failed(error: unknown): Loadable<Name>;
}

export function loadable<Name extends string>(name: Name): LoadSteps<Name> {
  const load = `${name}Load` as const;
  const error = `${name}Error` as const;
  const step = (state: LoadState, message: string | undefined) =>
    ({ [load]: state, [error]: message }) as Loadable<Name>;
  return {
    idle: step('idle', undefined),
    loading: { [load]: 'loading' } as Pick<Loadable<Name>, `${Name}Load`>,
    restart: step('loading', undefined),
    ready: step('ready', undefined),
    failed: (cause) => step('error', messageOf(cause)),
  };
}
