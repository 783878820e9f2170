import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AppLocation } from '../../electron/shell/appLocation.js';
import { isAppUrl, resolveAppLocation } from '../../electron/shell/appLocation.js';
import { isAllowedNavigation, isSafeExternalUrl } from '../../electron/shell/navigation.js';

const INDEX = '/opt/Mini Harness/out/renderer/index.html';
const fileLocation = resolveAppLocation({ isPackaged: true, devServerUrl: undefined, rendererIndexFile: INDEX });
const devLocation: AppLocation = resolveAppLocation({
  isPackaged: false,
  devServerUrl: 'http://localhost:5173',
  rendererIndexFile: INDEX,
});

describe('resolveAppLocation', () => {
  it('loads the built file in production, whatever the environment says', () => {
    expect(fileLocation).toEqual({ kind: 'file', url: pathToFileURL(INDEX).href, file: INDEX });
    expect(
      resolveAppLocation({ isPackaged: true, devServerUrl: 'http://localhost:5173', rendererIndexFile: INDEX }).kind,
    ).toBe('file');
  });

  it('uses the dev server when unpackaged and ELECTRON_RENDERER_URL is set', () => {
    expect(devLocation).toEqual({ kind: 'dev', url: 'http://localhost:5173/', origin: 'http://localhost:5173' });
    expect(
      resolveAppLocation({ isPackaged: false, devServerUrl: 'http://127.0.0.1:5174/', rendererIndexFile: INDEX }).kind,
    ).toBe('dev');
    expect(resolveAppLocation({ isPackaged: false, devServerUrl: '', rendererIndexFile: INDEX }).kind).toBe('file');
  });

  it.each([
    'https://example.com',
    'http://example.com:5173',
    'file:///etc/passwd',
    'http://user:pw@localhost:5173',
    'not a url',
    'http://localhost.evil.com',
  ])('refuses a dev server URL that is not loopback http: %s', (url) => {
    expect(() => resolveAppLocation({ isPackaged: false, devServerUrl: url, rendererIndexFile: INDEX })).toThrow(
      /loopback http/,
    );
  });
});

describe('isAllowedNavigation (file:// app)', () => {
  const page = pathToFileURL(INDEX).href;

  it('allows the app page, with a query or fragment (renderer routes)', () => {
    expect(isAllowedNavigation(page, fileLocation)).toBe(true);
    expect(isAllowedNavigation(`${page}#/servers/a`, fileLocation)).toBe(true);
    expect(isAllowedNavigation(`${page}?x=1`, fileLocation)).toBe(true);
    // Another encoder's spelling of the same path (Electron's loadFile vs pathToFileURL).
    expect(isAllowedNavigation('file:///opt/Mini%20Harness/out/renderer/index.html', fileLocation)).toBe(true);
  });

  it.each([
    'file:///opt/Mini%20Harness/out/renderer/other.html',
    'file:///etc/passwd',
    'file:///opt/Mini%20Harness/out/renderer/',
    'file://remote-host/opt/Mini%20Harness/out/renderer/index.html',
    'https://example.com/',
    'http://localhost:5173/',
    'data:text/html,<script>alert(1)</script>',
    'javascript:alert(1)',
    'about:blank',
    'file:///opt/Mini%20Harness/out/renderer/index.html%',
    '',
  ])('denies %s', (url) => {
    expect(isAllowedNavigation(url, fileLocation)).toBe(false);
  });

  it('denies non-strings', () => {
    expect(isAllowedNavigation(undefined, fileLocation)).toBe(false);
    expect(isAllowedNavigation(42, fileLocation)).toBe(false);
  });
});

describe('isAllowedNavigation (dev server)', () => {
  it('allows any path on the dev origin', () => {
    expect(isAllowedNavigation('http://localhost:5173/', devLocation)).toBe(true);
    expect(isAllowedNavigation('http://localhost:5173/index.html#x', devLocation)).toBe(true);
  });

  it.each([
    'http://localhost:5174/',
    'https://localhost:5173/',
    'http://127.0.0.1:5173/',
    'http://localhost.evil.com:5173/',
    'http://evil.com/?http://localhost:5173',
    'http://user@localhost:5173/',
    pathToFileURL(INDEX).href,
  ])('denies %s', (url) => {
    expect(isAllowedNavigation(url, devLocation)).toBe(false);
  });
});

describe('isAppUrl', () => {
  it('is the same rule as navigation', () => {
    expect(isAppUrl(pathToFileURL(INDEX).href, fileLocation)).toBe(true);
    expect(isAppUrl('https://example.com', fileLocation)).toBe(false);
  });
});

describe('isSafeExternalUrl', () => {
  it.each([
    'https://modelcontextprotocol.io/docs',
    'http://example.com',
    'https://example.com:8443/a?b=c#d',
    'HTTPS://EXAMPLE.COM/',
  ])('allows %s', (url) => {
    expect(isSafeExternalUrl(url)).toBe(true);
  });

  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'file:///etc/passwd',
    'file://server/share/x.exe',
    'data:text/html,hi',
    'vbscript:msgbox(1)',
    'smb://server/share',
    'ms-msdt:/id PCWDiagnostic',
    'vscode://file/etc/passwd',
    'mailto:a@example.com',
    'https://user:pw@example.com',
    'https://good.example@evil.example/',
    'http://',
    'https//missing-colon.example',
    'not a url',
    '',
    '   ',
  ])('denies %s', (url) => {
    expect(isSafeExternalUrl(url)).toBe(false);
  });

  it('denies non-strings and absurdly long URLs', () => {
    expect(isSafeExternalUrl(undefined)).toBe(false);
    expect(isSafeExternalUrl({ href: 'https://example.com' })).toBe(false);
    expect(isSafeExternalUrl(`https://example.com/${'a'.repeat(9000)}`)).toBe(false);
  });
});
