/**
 * The tray icon and the Windows taskbar badge, drawn as raw bitmaps (no image files to package
 * and find at run time). Electron's `nativeImage.createFromBitmap` takes 32-bit BGRA pixels,
 * premultiplied by alpha, row by row.
 */

export type Rgb = readonly [number, number, number];

/** The app's accent (the renderer's primary blue) and the badge's red. */
export const ACCENT: Rgb = [0x3b, 0x82, 0xf6];
export const ALERT: Rgb = [0xdc, 0x26, 0x26];

/**
 * A filled disc of `color` on a transparent square, with an optional white centre dot (the tray
 * icon), edges anti-aliased by coverage.
 */
export function discBitmap(size: number, color: Rgb, centreDot = false): Buffer {
  const pixels = Buffer.alloc(size * size * 4);
  const centre = size / 2;
  const radius = size / 2 - 0.5;
  const dotRadius = size / 6;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const distance = Math.hypot(x + 0.5 - centre, y + 0.5 - centre);
      const alpha = clamp01(radius - distance + 0.5);
      if (alpha === 0) continue;
      const white = centreDot ? clamp01(dotRadius - distance + 0.5) : 0;
      const [r, g, b] = color.map((channel) => channel + (255 - channel) * white) as unknown as Rgb;
      const offset = (y * size + x) * 4;
      pixels[offset] = Math.round(b * alpha);
      pixels[offset + 1] = Math.round(g * alpha);
      pixels[offset + 2] = Math.round(r * alpha);
      pixels[offset + 3] = Math.round(255 * alpha);
    }
  }
  return pixels;
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
