import { describe, expect, it } from 'vitest';
import { APP_TITLE, windowOptions } from '../../electron/shell/windowOptions.js';

describe('windowOptions', () => {
  const options = windowOptions('/app/out/preload/preload.cjs');
  const prefs = options.webPreferences ?? {};

  it('uses the given preload and the app title, and waits for ready-to-show', () => {
    expect(prefs.preload).toBe('/app/out/preload/preload.cjs');
    expect(options.title).toBe(APP_TITLE);
    expect(options.show).toBe(false);
  });

  it.each([
    ['contextIsolation', true],
    ['sandbox', true],
    ['nodeIntegration', false],
    ['nodeIntegrationInWorker', false],
    ['nodeIntegrationInSubFrames', false],
    ['webSecurity', true],
    ['allowRunningInsecureContent', false],
    ['webviewTag', false],
    ['spellcheck', false],
    ['experimentalFeatures', false],
    ['navigateOnDragDrop', false],
  ] as const)('sets %s to %s explicitly', (flag, value) => {
    expect(prefs).toHaveProperty(flag, value);
  });

  it('returns a fresh object each time (no shared mutable state)', () => {
    const a = windowOptions('/a');
    const b = windowOptions('/b');
    expect(a.webPreferences).not.toBe(b.webPreferences);
    expect(b.webPreferences?.preload).toBe('/b');
  });
});
