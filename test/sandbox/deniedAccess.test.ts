/** A sandboxed server's stderr naming a hidden path becomes the narrowest "allow reading" (issue 29). */
import { describe, expect, it } from 'vitest';
import { deniedReadIn } from '../../electron/sandbox/deniedAccess.js';

const profile = {
  read: {
    deny: ['/home/ana', '/home', '/home/ana/.local/share/MiniHarness'],
    allow: ['/home/ana/.nvm/versions/node/v24', '/home/ana/.local/share/MiniHarness/sandbox/fs'],
  },
};

const NEVER = ['/home/ana/.local/share/MiniHarness', '/run/user/1000'];

describe('deniedReadIn', () => {
  it('names the folder two levels under the hidden one, from the words programs use', () => {
    expect(
      deniedReadIn(
        ["Error: ENOENT: no such file or directory, open '/home/ana/.config/foo/settings.json'"],
        profile,
        NEVER,
      ),
    ).toBe('/home/ana/.config/foo');
    expect(deniedReadIn(['cannot read "/home/ana/.aws/credentials"'], profile, NEVER)).toBe('/home/ana/.aws');
    expect(deniedReadIn(['open /home/ana/notes.txt: no such file'], profile, NEVER)).toBe('/home/ana/notes.txt');
  });

  it('ignores what the profile allows, paths outside hidden folders, and the hidden folder itself', () => {
    expect(deniedReadIn(['/home/ana/.nvm/versions/node/v24/lib/x.js:12'], profile, NEVER)).toBeUndefined();
    expect(
      deniedReadIn(['at /usr/lib/node_modules/x/index.js:3:9', 'see https://example.com/a/b'], profile, NEVER),
    ).toBe(undefined);
    expect(deniedReadIn(['HOME is /home/ana'], profile, NEVER)).toBeUndefined();
  });

  it("never offers the app's own data folder (its secrets, database) nor the runtime folder", () => {
    expect(deniedReadIn(['ENOENT /home/ana/.local/share/MiniHarness/secrets.json'], profile, NEVER)).toBeUndefined();
    expect(deniedReadIn(['connect /run/user/1000/bus: ENOENT'], profile, NEVER)).toBeUndefined();
  });
});
