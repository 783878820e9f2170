/**
 * The desktop app's "keep running when the window is closed" setting, through the real core and
 * its config store: on by default, saved across restarts, told to listeners (the Electron shell
 * follows it with `settings.changed`), and a payload of the wrong type changes nothing.
 */
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import type { SettingsView } from '../../shared/contract.js';
import { buildCore } from '../../electron/core/core.js';
import type { Core } from '../../electron/core/types.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { scratchDir } from '../helpers/fixtures.js';

const scratch = scratchDir('mh-keep-running-');
const cores: Core[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
});

async function openCore(): Promise<Core> {
  const dataDir = join(scratch.dir, 'data');
  const core = await buildCore({
    mode: 'electron',
    dataDir,
    workspaceDir: join(scratch.dir, 'workspace'),
    secrets: new FileSecretStore(join(dataDir, 'secrets.json')),
    config: openConfConfigStore(dataDir),
    version: '0.0.0-test',
  });
  cores.push(core);
  return core;
}

async function settingsOf(core: Core): Promise<SettingsView> {
  const answer = await core.dispatch('settings.get', {});
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.result as SettingsView;
}

it('is on by default, is saved, survives a restart, and is announced with settings.changed', async () => {
  const core = await openCore();
  const changes: unknown[] = [];
  core.onEvent((event, payload) => {
    if (event === 'settings.changed') changes.push(payload);
  });
  expect((await settingsOf(core)).keepRunningOnClose).toBe(true);

  const answer = await core.dispatch('settings.setKeepRunning', { keepRunning: false });
  expect(answer).toMatchObject({ ok: true, result: { keepRunningOnClose: false } });
  expect(changes).toEqual([{ settings: expect.objectContaining({ keepRunningOnClose: false }) }]);

  // A wrong type is refused by the contract and changes nothing.
  expect(await core.dispatch('settings.setKeepRunning', { keepRunning: 'no' })).toMatchObject({
    ok: false,
    error: { code: 'invalid_request' },
  });
  expect(changes).toHaveLength(1);

  await core.close();
  const restarted = await openCore();
  expect((await settingsOf(restarted)).keepRunningOnClose).toBe(false);
});

it('a folder change is announced too, with the whole view', async () => {
  const core = await openCore();
  const changes: SettingsView[] = [];
  core.onEvent((event, payload) => {
    if (event === 'settings.changed') changes.push((payload as { settings: SettingsView }).settings);
  });
  await core.dispatch('settings.setRoots', { roots: [] });
  expect(changes).toHaveLength(1);
  expect(changes[0]?.roots[0]?.workspace).toBe(true);
  expect(typeof changes[0]?.keepRunningOnClose).toBe('boolean');
});

afterAll(() => scratch.cleanup());
