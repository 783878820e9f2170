/**
 * `miniharness serve`'s People page (issue 36): who the page's person is ('people.me': the desktop
 * app answers `team: false`, and the page is never shown there), and for an admin the people who
 * signed in with their roles and the command line's API tokens.
 */
import type { ErrorShape, RequestOf, ResponseOf } from '../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator } from '../types.js';

type PeopleList = ResponseOf<'people.list'>;

export interface PeopleSlice {
  /** Undefined until asked (or when asking failed: nothing team-only is shown then). */
  team: ResponseOf<'people.me'> | undefined;
  people: PeopleList | undefined;
  loadTeam(): Promise<void>;
  loadPeople(): Promise<void>;
  /** Each change reloads the list; resolves to the refusal (a code and a sentence) when refused. */
  setPersonRole(request: RequestOf<'people.setRole'>): Promise<ErrorShape | undefined>;
  removePerson(request: RequestOf<'people.remove'>): Promise<ErrorShape | undefined>;
  /** The new token's value (shown once), or the refusal. */
  createApiToken(request: RequestOf<'people.createToken'>): Promise<{ secret: string } | { error: ErrorShape }>;
  revokeApiToken(id: string): Promise<ErrorShape | undefined>;
}

const shapeOf = (error: unknown): ErrorShape =>
  error instanceof BridgeError ? error.toShape() : { code: 'internal', message: messageOf(error) };

export const createPeopleSlice: ClientSliceCreator<PeopleSlice> = (client) => (set, get) => {
  const change = async (run: () => Promise<unknown>): Promise<ErrorShape | undefined> => {
    try {
      await run();
    } catch (error) {
      return shapeOf(error);
    }
    await get()
      .loadPeople()
      .catch(() => undefined);
    return undefined;
  };
  return {
    team: undefined,
    people: undefined,
    async loadTeam() {
      set({ team: await client.call('people.me', {}) }, false, 'people/me');
    },
    async loadPeople() {
      set({ people: await client.call('people.list', {}) }, false, 'people/loaded');
    },
    setPersonRole: (request) => change(() => client.call('people.setRole', request)),
    removePerson: (request) => change(() => client.call('people.remove', request)),
    async createApiToken(request) {
      try {
        const { secret } = await client.call('people.createToken', request);
        await get()
          .loadPeople()
          .catch(() => undefined);
        return { secret };
      } catch (error) {
        return { error: shapeOf(error) };
      }
    },
    revokeApiToken: (id) => change(() => client.call('people.revokeToken', { id })),
  };
};
