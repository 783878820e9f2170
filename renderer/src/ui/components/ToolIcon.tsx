/**
 * A tool's icon (MCP `icons`), when the server gave one. Main passes only inline images, so the
 * page loads nothing from the network; an icon made for the other color scheme is a fallback.
 */
import type { ToolIcon as ToolIconView } from '../../../../shared/contract.js';

function prefersDark(): boolean {
  return (
    typeof window !== 'undefined' &&
    typeof window.matchMedia === 'function' &&
    window.matchMedia('(prefers-color-scheme: dark)').matches
  );
}

/** The icon to show: one for this color scheme (or for any), else the first. */
function pickIcon(icons: ToolIconView[] | undefined, dark = prefersDark()): ToolIconView | undefined {
  if (!icons?.length) return undefined;
  const scheme = dark ? 'dark' : 'light';
  return icons.find((icon) => icon.theme === scheme) ?? icons.find((icon) => icon.theme === undefined) ?? icons[0];
}

export function ToolIcon({ icons, size = 16 }: { icons: ToolIconView[] | undefined; size?: number }) {
  const icon = pickIcon(icons);
  if (!icon) return null;
  // Decorative: the tool's name and title say what it is.
  return <img className="tool-icon" src={icon.src} alt="" width={size} height={size} data-testid="tool-icon" />;
}
