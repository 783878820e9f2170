/**
 * One policy, every delivery: renderer/index.html's meta tag is shared/csp.ts's policy (minus what
 * a meta tag cannot carry), the Electron session's header is the full policy, and browser mode
 * adds only its bridge WebSocket. (The BUILT page is checked after the build:
 * test/e2e/desktop/bundles.spec.ts.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cspDirectives } from '../helpers/csp.js';
import { CONTENT_SECURITY_POLICY as SHELL_POLICY } from '../../electron/shell/csp.js';
import {
  CONTENT_SECURITY_POLICY,
  HEADER_ONLY_CSP_DIRECTIVES,
  META_CONTENT_SECURITY_POLICY,
  PRODUCTION_CSP_DIRECTIVES,
  browserModeCspDirectives,
  cspMetaOf,
  withCspMeta,
} from '../../shared/csp.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the page policy has one source', () => {
  it("renderer/index.html's meta tag is META_CONTENT_SECURITY_POLICY", () => {
    const meta = cspMetaOf(readFileSync(join(ROOT, 'renderer', 'index.html'), 'utf8'));
    expect(meta, 'renderer/index.html has a CSP meta tag').toBeDefined();
    expect(meta).toBe(META_CONTENT_SECURITY_POLICY);
  });

  it('the meta policy is the header policy without the header-only directives', () => {
    const header = cspDirectives(CONTENT_SECURITY_POLICY);
    for (const name of HEADER_ONLY_CSP_DIRECTIVES) delete header[name];
    expect(cspDirectives(META_CONTENT_SECURITY_POLICY)).toEqual(header);
    expect(META_CONTENT_SECURITY_POLICY).not.toMatch(/ws:|\*/);
  });

  it('the Electron shell sends the same policy', () => {
    expect(SHELL_POLICY).toBe(CONTENT_SECURITY_POLICY);
  });

  it("browser mode differs only in connect-src: the bridge's WebSocket on its own port", () => {
    const browser = browserModeCspDirectives(4123);
    expect({ ...browser, 'connect-src': PRODUCTION_CSP_DIRECTIVES['connect-src'] }).toEqual(PRODUCTION_CSP_DIRECTIVES);
    expect(browser['connect-src']).toEqual(["'self'", 'ws://127.0.0.1:4123', 'ws://localhost:4123']);
  });

  it('withCspMeta replaces the meta policy and nothing else', () => {
    const html = readFileSync(join(ROOT, 'renderer', 'index.html'), 'utf8');
    const replaced = withCspMeta(html, "default-src 'none'");
    expect(cspMetaOf(replaced)).toBe("default-src 'none'");
    expect(replaced.replace("default-src 'none'", META_CONTENT_SECURITY_POLICY)).toBe(html);
    expect(withCspMeta('<title>no meta</title>', "default-src 'none'")).toBe('<title>no meta</title>');
  });
});
