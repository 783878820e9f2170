/**
 * The `people.*` channels on `miniharness serve` (the People page): answered here, not by the
 * core, with the caller's person (who made each change goes into the audit). The role check ran
 * before (serveAccess.ts `refusal`): every channel but `people.me` is an admin's. Requests and
 * answers go through the contract's schemas, as the core's dispatcher does.
 */
import type { DispatchResult } from '../../shared/bridge.js';
import type { ChannelName } from '../../shared/contract.js';
import type { Handlers } from '../core/dispatcher.js';
import { createDispatcher } from '../core/dispatcher.js';
import type { AuditLog } from './audit.js';
import type { People, Person } from './people.js';
import { personLabel } from './people.js';
import type { Role } from './roles.js';

type PeopleChannel = Extract<ChannelName, `people.${string}`>;

export const isPeopleChannel = (channel: string): channel is PeopleChannel => channel.startsWith('people.');

export interface PeopleCaller {
  person: Person;
  role: Role;
}

export interface PeopleChannelDeps {
  people: People;
  audit: AuditLog;
  /** Ends a person's sessions on every instance (their open pages' bridges close): removed, or their role changed. */
  endSessionsOf: (person: Person) => Promise<void>;
}

function handlersFor(deps: PeopleChannelDeps, caller: PeopleCaller): Pick<Handlers, PeopleChannel> {
  const { people, audit } = deps;
  const by = caller.person;
  return {
    'people.me': () => ({ team: true, name: personLabel(by), role: caller.role }),
    'people.list': () => people.list(by),
    'people.setRole': async ({ issuer, subject, role }) => {
      const before = people.list(by).people.find((p) => p.issuer === issuer && p.subject === subject)?.role;
      const view = await people.setRole(by, { issuer, subject }, role);
      audit.record({ action: 'role changed', person: by, target: view.label, role });
      // Their sessions were made with the former role: they end on every instance, and the person signs in again.
      if (before !== view.role) await deps.endSessionsOf({ issuer, subject });
      return view;
    },
    'people.remove': async ({ issuer, subject }) => {
      const label = people.list(by).people.find((p) => p.issuer === issuer && p.subject === subject)?.label;
      const removed = await people.remove({ issuer, subject });
      if (removed) {
        audit.record({ action: 'person removed', person: by, target: label ?? subject });
        await deps.endSessionsOf({ issuer, subject });
      }
      return { removed };
    },
    'people.createToken': async ({ name, role }) => {
      const created = await people.createToken(by, name, role);
      audit.record({ action: 'api token created', person: by, target: name, role });
      return created;
    },
    'people.revokeToken': async ({ id }) => {
      const revoked = await people.revokeToken(id);
      audit.record({ action: 'api token revoked', person: by, target: revoked.name });
      return revoked;
    },
  };
}

/** Answers one `people.*` request as the core's dispatcher would (validation, errors as codes, the answer parsed). */
export function dispatchPeople(
  deps: PeopleChannelDeps,
  caller: PeopleCaller,
  channel: PeopleChannel,
  payload: unknown,
): Promise<DispatchResult> {
  // Only people.* channels reach this dispatcher (isPeopleChannel), and each has its handler here.
  const dispatch = createDispatcher(handlersFor(deps, caller) as Handlers);
  return dispatch(channel, payload);
}
