/**
 * The core collects damaged-file reports from every store into `app.info` and pushes the whole
 * list as an `app.warnings` event when one is found after the page may have asked.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { AppInfo, AppWarning } from '../../shared/contract.js';
import { buildCore } from '../../electron/core/core.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { scratchDir } from '../helpers/fixtures.js';

it('a damaged secrets file found at start reaches listeners as `app.warnings` and stays in app.info, beside a damaged config', async () => {
  const scratch = scratchDir();
  const dataDir = join(scratch.dir, 'data');
  mkdirSync(dataDir);
  writeFileSync(join(dataDir, 'secrets.json'), 'not json');
  writeFileSync(join(dataDir, 'config.json'), '[]');
  const core = await buildCore({
    mode: 'browser',
    dataDir,
    workspaceDir: join(scratch.dir, 'workspace'),
    secrets: new FileSecretStore(join(dataDir, 'secrets.json')),
    config: openConfConfigStore(dataDir),
    version: '0.0.0-test',
    gateway: { port: 0 },
  });
  const pushed: AppWarning[][] = [];
  core.onEvent((event, payload) => {
    if (event === 'app.warnings') pushed.push((payload as { warnings: AppWarning[] }).warnings);
  });
  try {
    await core.start();
    expect(pushed).toHaveLength(1);
    const expected = [
      {
        code: 'file_damaged',
        file: join(dataDir, 'config.json'),
        lost: 'settings',
        problem: 'invalid_content',
        movedTo: expect.stringContaining('config.json.corrupt-'),
      },
      {
        code: 'file_damaged',
        file: join(dataDir, 'secrets.json'),
        lost: 'secrets',
        problem: 'not_json',
        movedTo: expect.stringContaining('secrets.json.corrupt-'),
      },
    ];
    expect(pushed[0]).toEqual(expected);
    const info = await core.dispatch('app.info', {});
    expect(info.ok && (info.result as AppInfo).warnings).toEqual(expected);
  } finally {
    await core.close();
    scratch.cleanup();
  }
});
