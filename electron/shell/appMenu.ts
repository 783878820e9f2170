/**
 * The application menu of a packaged app: Electron's default menu carries View → Toggle
 * Developer Tools and Reload (and their shortcuts), which an installed app must not offer. This
 * one keeps what people use — the macOS app menu, Edit's roles (so copy, paste and select-all work
 * in every text field, on macOS too, where they only work through the menu), zoom, full screen
 * and the window roles — and nothing that opens DevTools or reloads the page. Run from the project
 * (`npm start`), Electron's default menu stays, DevTools included. Pure: main.ts builds it.
 */
import type { MenuItemConstructorOptions } from 'electron';

/** The roles a packaged app's menu must never contain. */
export const DEVELOPER_ROLES: ReadonlySet<string> = new Set(['toggleDevTools', 'reload', 'forceReload']);

export function applicationMenuTemplate(platform: NodeJS.Platform, productName: string): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const appMenu: MenuItemConstructorOptions = {
    label: productName,
    submenu: [
      { role: 'about' },
      { type: 'separator' },
      { role: 'services' },
      { type: 'separator' },
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      { type: 'separator' },
      { role: 'quit' },
    ],
  };
  const file: MenuItemConstructorOptions = { label: 'File', submenu: [mac ? { role: 'close' } : { role: 'quit' }] };
  const edit: MenuItemConstructorOptions = {
    label: 'Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(mac ? ([{ role: 'pasteAndMatchStyle' }] as const) : []),
      { role: 'delete' },
      { type: 'separator' },
      { role: 'selectAll' },
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
  const window: MenuItemConstructorOptions = {
    label: 'Window',
    submenu: mac
      ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }]
      : [{ role: 'minimize' }, { role: 'close' }],
  };
  return [...(mac ? [appMenu] : []), file, edit, view, window];
}

/** Every role in a template, submenus included (what the tests check). */
export function rolesOf(template: readonly MenuItemConstructorOptions[]): string[] {
  return template.flatMap((item) => [
    ...(item.role ? [item.role] : []),
    ...(Array.isArray(item.submenu) ? rolesOf(item.submenu) : []),
  ]);
}
