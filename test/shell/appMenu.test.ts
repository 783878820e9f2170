import { describe, expect, it } from 'vitest';
import { DEVELOPER_ROLES, applicationMenuTemplate, rolesOf } from '../../electron/shell/appMenu.js';

describe('applicationMenuTemplate (packaged apps)', () => {
  for (const platform of ['darwin', 'win32', 'linux'] as const) {
    it(`${platform}: no DevTools or Reload, and Edit’s roles so copy and paste work`, () => {
      const roles = rolesOf(applicationMenuTemplate(platform, 'MiniHarness Desktop'));
      expect(roles.filter((role) => DEVELOPER_ROLES.has(role))).toEqual([]);
      expect(roles).toEqual(expect.arrayContaining(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']));
    });
  }

  it('macOS: the app menu first, named after the product, with hide and quit', () => {
    const [appMenu] = applicationMenuTemplate('darwin', 'MiniHarness Desktop');
    expect(appMenu?.label).toBe('MiniHarness Desktop');
    expect(rolesOf([appMenu!])).toEqual(['about', 'services', 'hide', 'hideOthers', 'unhide', 'quit']);
  });

  it('Windows and Linux: no app menu; File → Quit', () => {
    const template = applicationMenuTemplate('win32', 'MiniHarness Desktop');
    expect(template.map((item) => item.label)).toEqual(['File', 'Edit', 'View', 'Window']);
    expect(rolesOf([template[0]!])).toEqual(['quit']);
  });

  it('rolesOf finds roles in nested submenus', () => {
    expect(
      rolesOf([{ label: 'a', submenu: [{ role: 'copy' }, { label: 'b', submenu: [{ role: 'toggleDevTools' }] }] }]),
    ).toEqual(['copy', 'toggleDevTools']);
  });
});
