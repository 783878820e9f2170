/** Which stdio entry "Connect an agent" shows, per install (electron/core/gatewayOptions.ts). */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stdioEntry } from '../../electron/core/gatewayOptions.js';

describe('stdioEntry', () => {
  it('packaged: the app binary itself with --gateway-stdio (on macOS, the executable inside the bundle)', () => {
    const execPath = '/Applications/MiniHarness Desktop.app/Contents/MacOS/MiniHarness Desktop';
    expect(
      stdioEntry({
        packaged: true,
        execPath,
        projectRoot: '/Applications/MiniHarness Desktop.app/Contents/Resources/app.asar',
        node: 'node',
      }),
    ).toEqual({
      command: execPath,
      args: ['--gateway-stdio'],
    });
    expect(
      stdioEntry({
        packaged: true,
        execPath: 'C:\\Program Files\\MiniHarness\\MiniHarness Desktop.exe',
        projectRoot: 'x',
        node: 'node',
      }),
    ).toEqual({
      command: 'C:\\Program Files\\MiniHarness\\MiniHarness Desktop.exe',
      args: ['--gateway-stdio'],
    });
  });

  it('from a checkout (Electron dev or browser mode): node and the absolute path of the bin', () => {
    expect(
      stdioEntry({
        packaged: false,
        execPath: '/project/node_modules/electron/dist/electron',
        projectRoot: '/project',
        node: 'node',
      }),
    ).toEqual({
      command: 'node',
      args: [join('/project', 'bin', 'miniharness-gateway.mjs')],
    });
    expect(
      stdioEntry({ packaged: false, execPath: '/usr/bin/node', projectRoot: '/project', node: '/usr/bin/node' }),
    ).toEqual({
      command: '/usr/bin/node',
      args: [join('/project', 'bin', 'miniharness-gateway.mjs')],
    });
  });
});
