/**
 * The composition root's two helpers: `coalesce` (a burst of requests in one turn runs its work
 * once, at the end of the turn; the next turn's burst runs it again) and `Late` (a part built
 * later, read by one built earlier: reading it before it is set names the part).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { coalesce } from '../../electron/util/coalesce.js';
import { Late } from '../../electron/util/late.js';

describe('coalesce', () => {
  it('runs once per turn however many times it is asked, not before the turn ends', async () => {
    let runs = 0;
    const changed = coalesce(() => {
      runs += 1;
    });
    changed();
    changed();
    changed();
    expect(runs).toBe(0);
    await nextTurn();
    expect(runs).toBe(1);
    changed();
    changed();
    await nextTurn();
    expect(runs).toBe(2);
  });

  it('a request made while the work runs schedules one more run', async () => {
    let runs = 0;
    const changed = coalesce(() => {
      runs += 1;
      if (runs === 1) changed();
    });
    changed();
    await nextTurn();
    await nextTurn();
    expect(runs).toBe(2);
  });
});

describe('Late', () => {
  it('gives the value once set, and names the part when read before', () => {
    const registry = new Late<{ name: string }>('The tool registry');
    expect(() => registry.get()).toThrow('The tool registry was used before it was built.');
    const value = { name: 'r' };
    expect(registry.set(value)).toBe(value);
    expect(registry.get()).toBe(value);
  });
});
