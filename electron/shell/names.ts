/**
 * The contract's channel and event names as plain data. The sandboxed preload may only
 * `require('electron')`, so it cannot pull in `shared/contract.ts` (and zod with it); it takes
 * these lists instead — add a name here when the contract gains one. The types below fail to
 * compile if a list misses or invents a name (the error names it), and
 * test/shell/preloadApi.test.ts checks they equal the contract's keys, in order, at run time.
 */
import type { ChannelName, EventName } from '../../shared/contract.js';

export const CHANNEL_NAME_LIST = [
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
] as const satisfies readonly ChannelName[];

export const EVENT_NAME_LIST = [
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
] as const satisfies readonly EventName[];

// Compile-time completeness: every contract name must appear in the list.
type Missing<All, Listed> = Exclude<All, Listed>;
type AssertNone<T extends never> = T;
export type _AllChannelsListed = AssertNone<Missing<ChannelName, (typeof CHANNEL_NAME_LIST)[number]>>;
export type _AllEventsListed = AssertNone<Missing<EventName, (typeof EVENT_NAME_LIST)[number]>>;
