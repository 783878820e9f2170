/**
 * The contract's channel and event names as plain data, in one zod-free module: the contract
 * (contract.ts) is keyed by them — `satisfies Record<ChannelName, …>` there makes a missing or an
 * extra name a type error — and the sandboxed preload, which may only `require('electron')` and
 * must not pull in zod, builds its functions from these lists. Add a name here and in the contract.
 */

export const CHANNEL_NAMES = [
  'app.info',
  'servers.list',
  'servers.get',
  'servers.save',
  'servers.remove',
  'servers.setEnabled',
  'servers.connect',
  'servers.disconnect',
  'servers.discover',
  'servers.log',
  'servers.signIn',
  'servers.signOut',
  'tools.list',
  'tools.call',
  'tools.cancel',
  'approvals.list',
  'approvals.answer',
  'permissions.get',
  'permissions.setToolLevel',
  'permissions.setServerTrust',
  'permissions.removeRule',
  'permissions.revokeSessionGrant',
  'settings.get',
  'settings.setRoots',
  'traces.list',
  'traces.get',
  'traces.export',
  'history.sessions',
  'history.page',
  'history.get',
  'history.replay',
  'history.rerun',
  'history.resolve',
  'import.preview',
  'import.apply',
] as const;

export const EVENT_NAMES = [
  'servers.changed',
  'server.status',
  'server.log',
  'tools.changed',
  'call.progress',
  'approval.requested',
  'approval.closed',
  'trace.changed',
  'permissions.changed',
  'app.warnings',
  'bridge.dropped',
  'oauth.authorize',
] as const;

/** A request/response channel of the contract (renderer → main). */
export type ChannelName = (typeof CHANNEL_NAMES)[number];
/** An event of the contract (main → renderer). */
export type EventName = (typeof EVENT_NAMES)[number];
