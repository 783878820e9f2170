import { describe, expect, it } from 'vitest';
import { ToolMap } from '../../electron/mcp/registry/toolMap.js';
import type { ToolDescriptor } from '../../electron/mcp/types.js';

const tool = (name: string): ToolDescriptor => ({ name, inputSchema: { type: 'object' } }) as ToolDescriptor;

describe('ToolMap.resolve and find', () => {
  it('resolve picks what a call by name reaches — the first of allTools() with that name — for every name', () => {
    const priorities: Record<string, number> = { beta: 2, alpha: 2, gamma: 5, delta: 0 };
    const map = new ToolMap((serverId) => priorities[serverId] ?? 0);
    map.set('beta', { tools: [tool('echo'), tool('shared')], fromCache: false });
    map.set('alpha', { tools: [tool('shared'), tool('only_alpha')], fromCache: false });
    map.set('gamma', { tools: [tool('top')], fromCache: false });
    map.set('delta', { tools: [tool('top'), tool('shared')], fromCache: false });
    for (const name of ['echo', 'shared', 'only_alpha', 'top', 'missing']) {
      expect(map.resolve(name)).toEqual(map.allTools().find((t) => t.name === name));
    }
    // Equal priorities: the server id first in order wins; a higher priority beats both.
    expect(map.resolve('shared')?.serverId).toBe('alpha');
    priorities.delta = 3;
    expect(map.resolve('shared')?.serverId).toBe('delta');
    expect(map.resolve('top')?.serverId).toBe('gamma');
  });

  it('find names one server’s tool whether or not it wins its name', () => {
    const map = new ToolMap((serverId) => (serverId === 'high' ? 9 : 1));
    map.set('low', { tools: [tool('echo')], fromCache: false });
    map.set('high', { tools: [tool('echo')], fromCache: false });
    expect(map.find('low', 'echo')).toMatchObject({ serverId: 'low', name: 'echo', priority: 1 });
    expect(map.find('low', 'nope')).toBeUndefined();
    expect(map.find('gone', 'echo')).toBeUndefined();
  });
});
