/** The renderer's one place for error words: every code has words; denials and causes are worded from typed details. */
import { describe, expect, it } from 'vitest';
import { BridgeError } from '../../renderer/src/bridge/errors.js';
import { describeError, describeErrorShape, errorTitle } from '../../renderer/src/lib/describeError.js';
import type { ErrorShape } from '../../shared/contract.js';
import { ERROR_CODES } from '../../shared/errors.js';

const denied = (by: 'person' | 'rule' | 'approval_timeout', extra: object = {}): ErrorShape => ({
  code: 'permission_denied',
  // The message is deliberately unrelated: the words must come from the details.
  message: 'zzz',
  details: {
    denial: {
      by,
      toolName: 'append',
      serverId: 'fx',
      level: by === 'rule' ? 'DENY' : 'ASK',
      reason: 'Rule "no writes" denies append on fx',
      ...extra,
    },
  },
});

describe('describeError', () => {
  it.each(ERROR_CODES)('%s has a title', (code) => {
    expect(describeErrorShape({ code, message: 'm' }).title).not.toBe('');
  });

  it('words a denial from who refused, never from the message', () => {
    expect(describeErrorShape(denied('person'))).toMatchObject({
      title: 'Denied: you denied it',
      text: 'Nothing was run.',
      next: 'permissions',
    });
    expect(describeErrorShape(denied('rule'))).toMatchObject({
      title: 'Denied: a rule denies it',
      text: 'Rule "no writes" denies append on fx. Nothing was run.',
    });
    expect(describeErrorShape(denied('approval_timeout', { timeoutMs: 60_000 })).text).toBe(
      'Nobody answered the approval request within 60 s. Nothing was run.',
    );
    expect(describeErrorShape(denied('rule', { keyRecorded: 'completed' })).text).toBe(
      'Rule "no writes" denies append on fx. This call did not run again; an earlier call with the same call id ran, and its result is in History.',
    );
  });

  it('says what failed and where for an unreachable server', () => {
    const shape: ErrorShape = {
      code: 'unreachable',
      message: 'zzz',
      details: { cause: { kind: 'connection_refused', host: '127.0.0.1', port: 4321, errno: 'ECONNREFUSED' } },
    };
    const words = describeErrorShape(shape);
    expect(words.title).toBe('Connection refused');
    expect(words.text).toContain('127.0.0.1:4321');
    expect(errorTitle('unreachable', { kind: 'dns', host: 'x.invalid', port: 80 })).toBe('Host not found');
  });

  it('a 401 with an OAuth challenge says sign in, never "replace the token"', () => {
    const signIn = describeErrorShape({
      code: 'auth',
      message: 'Server "x" asks you to sign in',
      details: { cause: { kind: 'sign_in', httpStatus: 401 } },
    });
    expect(signIn.title).toBe('Sign-in required');
    expect(signIn.text).not.toMatch(/token/i);
    const token = describeErrorShape({ code: 'auth', message: 'Server "x" refused the credentials' });
    expect(token.text).toContain('Replace the server’s token');
  });

  it('reads a code it does not know as unrecognized, and anything thrown as internal', () => {
    expect(describeErrorShape({ code: 'from_the_future' as ErrorShape['code'], message: 'New.' })).toMatchObject({
      code: 'unrecognized',
      text: 'New.',
    });
    expect(describeError(new Error('boom'))).toMatchObject({ code: 'internal', text: 'Boom.' });
    expect(describeError(new BridgeError({ code: 'timeout', message: 'Server "a" did not answer' })).title).toBe(
      'Timed out',
    );
  });

  it('OAuth (issue 11): "sign in" and its reason come from the typed details', () => {
    const scope: ErrorShape = {
      code: 'sign_in_required',
      message: 'zzz',
      details: { oauth: { reason: 'insufficient_scope', scope: 'a b' } },
    };
    expect(describeErrorShape(scope)).toMatchObject({ title: 'More permissions needed', next: 'servers' });
    expect(describeErrorShape({ code: 'sign_in_required', message: 'zzz' }).title).toBe('Needs sign-in');
    expect(
      describeErrorShape({
        code: 'oauth_failed',
        message: 'zzz',
        details: { oauth: { reason: 'resource_mismatch', resource: 'https://evil.example.com/mcp' } },
      }).title,
    ).toBe('Sign-in refused: wrong resource');
  });
});
