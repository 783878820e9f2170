/**
 * The registries setting refuses an address carrying credentials: the list is kept in the config
 * file and each registry error names its address, so `https://user:token@…` would put the token in
 * both (and in the renderer's sentence).
 */
import { describe, expect, it } from 'vitest';
import { catalogChannels } from '../../shared/contract/catalog.js';

const setRegistries = catalogChannels['catalog.setRegistries'].request;

describe('the registries setting', () => {
  it('takes http(s) addresses', () => {
    expect(
      setRegistries.safeParse({ registries: ['https://registry.example.com', 'http://127.0.0.1:9000/'] }).success,
    ).toBe(true);
  });

  it('refuses an address with a user name or password, at its entry, without repeating it', () => {
    const parsed = setRegistries.safeParse({
      registries: ['https://registry.example.com', 'https://me:t0ken@corp.example/'],
    });
    expect(parsed.success).toBe(false);
    const issue = parsed.error!.issues[0]!;
    expect(issue.path).toEqual(['registries', 1]);
    expect(issue.message).toBe('must not carry a user name or password');
    expect(JSON.stringify(parsed.error!.issues)).not.toContain('t0ken');
  });
});
