/** Trace ids: UUIDs of version 7 whose first 48 bits are the time in ms, so later ids sort later. */
import { describe, expect, it } from 'vitest';
import { timeOrderedUuid } from '../../electron/tracing/tracer.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('time-ordered trace ids', () => {
  it('are version 7 UUIDs carrying their millisecond, distinct within one, sorting by time', () => {
    const times = [0, 1, 1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_001, 2 ** 48 - 1];
    const ids = times.map((t) => timeOrderedUuid(t));
    for (const [i, id] of ids.entries()) {
      expect(id).toMatch(V7);
      expect(msOf(id)).toBe(times[i]);
    }
    expect(new Set(ids).size).toBe(ids.length);
    const later = ids.filter((_, i) => times[i] !== times[i - 1]); // one per millisecond: in time order
    expect([...later].sort()).toEqual(later);
    expect(msOf(timeOrderedUuid(1.9))).toBe(1); // whole milliseconds
  });
});
