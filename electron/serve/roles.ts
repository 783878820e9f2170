/**
 * What each role may do, enforced in main on every contract request (electron/web/access.ts):
 * each channel names the least role that may use it, and roles are ranked — an admin may do what
 * an approver may, an approver what a viewer may.
 *
 *   viewer:   reads History and Traces (and what the page needs to show them);
 *   approver: decides approvals and resolves unknown calls;
 *   admin:    servers, rules, agents, settings, and running tools.
 *
 * `satisfies Record<ChannelName, Role>` makes a new channel without a role a type error, and
 * test/serve/roles.test.ts checks every channel against every role through a running host.
 */
import type { ChannelName, EventName } from '../../shared/channelNames.js';

export const ROLES = ['viewer', 'approver', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, approver: 1, admin: 2 };

const V = 'viewer';
const P = 'approver';
const A = 'admin';

export const CHANNEL_ROLES = {
  'app.info': V,
  'servers.list': V,
  'servers.get': V,
  'servers.save': A,
  'servers.remove': A,
  'servers.setEnabled': A,
  'servers.connect': A,
  'servers.disconnect': A,
  'servers.discover': A,
  'servers.log': P,
  'servers.setLogLevel': A,
  'servers.signIn': A,
  'servers.signOut': A,
  'tools.list': V,
  'tools.call': A,
  'tools.cancel': A,
  'approvals.list': V,
  'approvals.answer': P,
  'permissions.get': V,
  'permissions.setToolLevel': A,
  'permissions.setServerTrust': A,
  'permissions.removeRule': A,
  'permissions.revokeSessionGrant': A,
  'permissions.setDenyFlagged': A,
  'settings.get': V,
  'settings.setRoots': A,
  'settings.setGateway': A,
  'settings.setAgentIdle': A,
  'settings.setApprovalTimeout': A,
  'settings.setKeepRunning': A,
  'settings.setCommandSandbox': A,
  'agents.list': V,
  'agents.create': A,
  'agents.setVisibility': A,
  'agents.revoke': A,
  'agents.remove': A,
  // Writes into this machine's agent applications' files: a server's, never a visitor's.
  'agents.addToClient': A,
  'agents.undoAddToClient': A,
  'traces.list': V,
  'traces.get': V,
  'traces.export': V,
  'history.sessions': V,
  'history.page': V,
  'history.get': V,
  'history.replay': P,
  'history.rerun': A,
  'history.askTask': P,
  'history.resolve': P,
  'import.preview': A,
  'import.apply': A,
  'serverRequests.list': V,
  'serverRequests.answer': P,
  'resources.list': V,
  'resources.read': A,
  'resources.subscribe': A,
  'resources.unsubscribe': A,
  'prompts.list': V,
  'prompts.get': A,
  'completion.complete': A,
  'models.list': A,
  'models.save': A,
  'models.remove': A,
  'models.test': A,
  'runs.list': V,
  'runs.get': V,
  'runs.start': A,
  'runs.stop': A,
  'runs.resume': A,
  'runs.delete': A,
  'apps.load': A,
  'apps.callTool': A,
  'apps.readResource': A,
  'catalog.search': A,
  'catalog.plan': A,
  'catalog.install': A,
  'catalog.updates': A,
  'catalog.previewUpdate': A,
  'catalog.applyUpdate': A,
  'catalog.registries': A,
  'catalog.setRegistries': A,
  'sandbox.hostRules': V,
  'sandbox.revokeHost': A,
  'sandbox.runUnsandboxed': A,
  'observability.get': A,
  'observability.set': A,
  'observability.test': A,
  'observability.traceLink': V,
  'people.me': V,
  'people.list': A,
  'people.setRole': A,
  'people.remove': A,
  'people.createToken': A,
  'people.revokeToken': A,
} as const satisfies Record<ChannelName, Role>;

/** Whether `role` may use `channel`; an unknown channel is refused here too (the dispatcher would refuse it anyway). */
export function roleAllows(role: Role, channel: string): boolean {
  const least = (CHANNEL_ROLES as Record<string, Role | undefined>)[channel];
  return least !== undefined && RANK[role] >= RANK[least];
}

/**
 * The least role whose pages get each event. `oauth.authorize` (a server's sign-in page, which the
 * page opens in a tab) goes further only to the person whose request caused it (serveAccess.ts).
 */
export const EVENT_ROLES = {
  'servers.changed': V,
  'server.status': V,
  'server.log': P,
  'oauth.authorize': A,
  'tools.changed': V,
  'call.progress': V,
  'call.task': V,
  'approval.requested': V,
  'approval.closed': V,
  'approval.show': V,
  'trace.changed': V,
  'permissions.changed': V,
  'settings.changed': V,
  'app.warnings': V,
  'bridge.dropped': V,
  'agents.changed': V,
  'serverRequest.opened': V,
  'serverRequest.closed': V,
  'resources.changed': V,
  'resources.updated': V,
  'prompts.changed': V,
  'run.event': V,
  'runs.changed': V,
} as const satisfies Record<EventName, Role>;

export function roleGetsEvent(role: Role, event: string): boolean {
  const least = (EVENT_ROLES as Record<string, Role | undefined>)[event];
  return least !== undefined && RANK[role] >= RANK[least];
}
