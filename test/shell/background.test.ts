/** Closing into the tray / dock, the tray menu, and the drawn icons. */
import { describe, expect, it } from 'vitest';
import {
  backgroundHost,
  backgroundNotice,
  closeAction,
  trayMenuItems,
  wantsTray,
} from '../../electron/shell/background.js';
import { ACCENT, discBitmap } from '../../electron/shell/icons.js';

describe('closeAction', () => {
  it('hides only while the app keeps running and is not quitting', () => {
    expect(closeAction({ quitting: false, keepRunning: true })).toBe('hide');
    expect(closeAction({ quitting: false, keepRunning: false })).toBe('close');
    expect(closeAction({ quitting: true, keepRunning: true })).toBe('close');
  });
});

describe('where the app runs on', () => {
  it('is the dock on macOS and a tray icon elsewhere, only while the setting is on', () => {
    expect(backgroundHost('darwin')).toBe('dock');
    expect(backgroundHost('win32')).toBe('tray');
    expect(backgroundHost('linux')).toBe('tray');
    expect(wantsTray({ platform: 'linux', keepRunning: true })).toBe(true);
    expect(wantsTray({ platform: 'win32', keepRunning: false })).toBe(false);
    expect(wantsTray({ platform: 'darwin', keepRunning: true })).toBe(false);
    expect(backgroundNotice('tray').body).toMatch(/tray.*Quit it from the tray icon’s menu.*Settings/);
    expect(backgroundNotice('dock').body).toMatch(/Dock.*⌘Q/);
  });

  it('offers the waiting approvals in the tray menu only when there are some', () => {
    expect(trayMenuItems(0).map((item) => item.action)).toEqual(['show', 'quit']);
    expect(trayMenuItems(2)).toEqual([
      { action: 'show', label: 'Open MiniHarness Desktop' },
      { action: 'approvals', label: 'Review 2 approvals waiting…' },
      { action: 'quit', label: 'Quit MiniHarness Desktop' },
    ]);
  });
});

describe('discBitmap', () => {
  it('draws a premultiplied BGRA disc: transparent corners, an opaque centre', () => {
    const size = 16;
    const pixels = discBitmap(size, ACCENT);
    expect(pixels.length).toBe(size * size * 4);
    const at = (x: number, y: number) => [...pixels.subarray((y * size + x) * 4, (y * size + x) * 4 + 4)];
    expect(at(0, 0)).toEqual([0, 0, 0, 0]);
    expect(at(8, 8)).toEqual([ACCENT[2], ACCENT[1], ACCENT[0], 255]);
    // With the centre dot, the middle turns white.
    expect(discBitmap(size, ACCENT, true).subarray((8 * size + 8) * 4, (8 * size + 8) * 4 + 4)).toEqual(
      Buffer.from([255, 255, 255, 255]),
    );
    // No channel exceeds alpha (premultiplied).
    for (let i = 0; i < pixels.length; i += 4)
      expect(Math.max(pixels[i]!, pixels[i + 1]!, pixels[i + 2]!)).toBeLessThanOrEqual(pixels[i + 3]!);
  });
});
