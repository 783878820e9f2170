import { describe, expect, it } from 'vitest';
import { cspDirectives } from '../helpers/csp.js';
import { CONTENT_SECURITY_POLICY, cspFor, cspHeaders, developmentCsp } from '../../electron/shell/csp.js';

describe('CONTENT_SECURITY_POLICY', () => {
  const csp = cspDirectives(CONTENT_SECURITY_POLICY);

  it('allows nothing unsafe: no eval, no inline script, no wildcard', () => {
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    expect(CONTENT_SECURITY_POLICY).not.toContain('*');
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/\bhttps?:/);
  });

  it.each([
    ['default-src', ["'self'"]],
    ['script-src', ["'self'"]],
    ['object-src', ["'none'"]],
    ['frame-ancestors', ["'none'"]],
    ['frame-src', ['mh-app-sandbox://proxy']],
    ['base-uri', ["'none'"]],
    ['form-action', ["'none'"]],
    ['connect-src', ["'self'"]],
  ])('%s is %j', (name, sources) => {
    expect(csp[name]).toEqual(sources);
  });

  it('lists each directive once', () => {
    const names = CONTENT_SECURITY_POLICY.split(';').map((p) => p.trim().split(/\s+/)[0]);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('developmentCsp', () => {
  const dev = developmentCsp('http://localhost:5173');
  const csp = cspDirectives(dev);

  it('still forbids eval, plugins and framing', () => {
    expect(dev).not.toContain('unsafe-eval');
    expect(csp['object-src']).toEqual(["'none'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
  });

  it('connects only to itself and the dev server WebSocket (HMR)', () => {
    expect(csp['connect-src']).toEqual(["'self'", 'ws://localhost:5173']);
  });

  it('is only used for the dev location', () => {
    expect(cspFor({ kind: 'dev', url: 'http://localhost:5173/', origin: 'http://localhost:5173' })).toBe(dev);
    expect(
      cspFor({ kind: 'file', url: 'file:///app/out/renderer/index.html', file: '/app/out/renderer/index.html' }),
    ).toBe(CONTENT_SECURITY_POLICY);
  });
});

describe('cspHeaders', () => {
  it('adds the policy and keeps other headers', () => {
    const headers = cspHeaders({ 'Content-Type': ['text/html'], 'X-One': 'a' });
    expect(headers['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
    expect(headers['Content-Type']).toEqual(['text/html']);
    expect(headers['X-One']).toEqual(['a']);
  });

  it('replaces a server-sent policy in any spelling', () => {
    const headers = cspHeaders(
      { 'content-security-policy': ['default-src *'], 'CONTENT-SECURITY-POLICY': 'script-src *' },
      'default-src none',
    );
    const cspKeys = Object.keys(headers).filter((k) => k.toLowerCase() === 'content-security-policy');
    expect(cspKeys).toEqual(['Content-Security-Policy']);
    expect(headers['Content-Security-Policy']).toEqual(['default-src none']);
  });

  it('works without response headers', () => {
    expect(cspHeaders(undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
  });
});
