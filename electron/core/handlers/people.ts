/**
 * `people.*` in the desktop app and `npm run web`: one person's harness, no roles. `miniharness
 * serve` answers these channels itself (electron/serve/peopleChannels.ts) before the core sees them.
 */
import type { Handlers } from '../dispatcher.js';
import { AppError } from '../errors.js';

type PeopleChannel =
  'people.me' | 'people.list' | 'people.setRole' | 'people.remove' | 'people.createToken' | 'people.revokeToken';

export function peopleHandlers(): Pick<Handlers, PeopleChannel> {
  const single = (): never => {
    throw new AppError('unavailable', 'People and API tokens are managed only by `miniharness serve`, for a team.');
  };
  return {
    'people.me': () => ({ team: false }),
    'people.list': single,
    'people.setRole': single,
    'people.remove': single,
    'people.createToken': single,
    'people.revokeToken': single,
  };
}
