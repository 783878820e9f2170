/**
 * The event hub: a listener that names its events (the browser host's approval watch) gets only
 * those, and neither makes a view worth building (`listening`) nor has other events validated.
 */
import { describe, expect, it } from 'vitest';
import { EventHub } from '../../electron/core/eventHub.js';
import type { EventName } from '../../shared/contract.js';

describe('EventHub', () => {
  it('a watcher of named events receives only those and does not count as listening', () => {
    let redactions = 0;
    const hub = new EventHub(<T>(value: T): T => {
      redactions++;
      return value;
    });
    const seen: Array<[EventName, unknown]> = [];
    hub.on((event, payload) => seen.push([event, payload]), ['bridge.dropped']);
    expect(hub.listening).toBe(false);
    hub.emit('server.log', { serverId: 'fs', line: { at: 1, stream: 'stderr', text: 'hello' } });
    // Nobody wants it: not validated, not redacted, not sent.
    expect(redactions).toBe(0);
    expect(seen).toEqual([]);
    hub.emit('bridge.dropped', { event: 'server.log', count: 2 });
    expect(redactions).toBe(1);
    expect(seen).toEqual([['bridge.dropped', { event: 'server.log', count: 2 }]]);
  });

  it('a listener of every event makes the hub listening until it leaves, and gets every event', () => {
    const hub = new EventHub(<T>(value: T): T => value);
    const seen: EventName[] = [];
    const stop = hub.on((event) => seen.push(event));
    expect(hub.listening).toBe(true);
    hub.emit('server.log', { serverId: 'fs', line: { at: 1, stream: 'stderr', text: 'hello' } });
    hub.emit('bridge.dropped', { event: 'server.log', count: 2 });
    expect(seen).toEqual(['server.log', 'bridge.dropped']);
    stop();
    stop();
    expect(hub.listening).toBe(false);
  });
});
