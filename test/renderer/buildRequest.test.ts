import { describe, expect, it } from 'vitest';
import { buildSaveRequest } from '../../renderer/src/ui/servers/form/buildRequest.js';
import type { ServerFormState } from '../../renderer/src/ui/servers/form/formModel.js';
import {
  emptyArgRow,
  emptyForm,
  emptyOAuthForm,
  emptySecretValue,
  emptyValueRow,
} from '../../renderer/src/ui/servers/form/formModel.js';

// The form → `servers.save` mapping decides where a typed secret goes: it must land in the
// write-only `secrets` map, never in the configuration.
function form(changes: Partial<ServerFormState>): ServerFormState {
  return { ...emptyForm(), name: 'Example', id: 'example', ...changes };
}

describe('server form → save request', () => {
  it('sends the root folders without empty rows, and leaves roots out when there are none', () => {
    const withRoots = buildSaveRequest(
      form({ command: 'srv', roots: [emptyArgRow('/home/me/a'), emptyArgRow(''), emptyArgRow('/home/me/b')] }),
    );
    expect(withRoots.ok && withRoots.request.config.roots).toEqual(['/home/me/a', '/home/me/b']);
    const none = buildSaveRequest(form({ command: 'srv', roots: [emptyArgRow('')] }));
    expect(none.ok && 'roots' in none.request.config).toBe(false);
    // Checked with the shared schema before sending: relative paths and duplicates, at their row.
    expect(
      buildSaveRequest(
        form({ command: 'srv', roots: [emptyArgRow('relative/x'), emptyArgRow('/a'), emptyArgRow('/a')] }),
      ),
    ).toMatchObject({
      ok: false,
      fieldErrors: { 'roots.0': ['must be an absolute path (e.g. /home/me/project)'], 'roots.2': ['appears twice'] },
    });
  });

  it('sends the Sandbox section once it is saved or edited, checked like the schema (issue 29)', () => {
    // Never saved nor edited: the app's default applies, nothing is written.
    const untouched = buildSaveRequest(form({ command: 'srv' }));
    expect(untouched.ok && 'sandbox' in untouched.request.config).toBe(false);
    const sandbox = {
      present: true,
      enabled: false,
      read: [emptyArgRow('/home/me/.config/tool'), emptyArgRow('')],
      write: [emptyArgRow('/home/me/out')],
      hosts: [emptyArgRow('api.example.com:443')],
      denyRead: ['/srv/secret'],
    };
    const off = buildSaveRequest(form({ command: 'srv', sandbox }));
    expect(off.ok && off.request.config.sandbox).toEqual({
      enabled: false,
      read: ['/home/me/.config/tool'],
      denyRead: ['/srv/secret'],
      write: ['/home/me/out'],
      hosts: ['api.example.com:443'],
    });
    expect(
      buildSaveRequest(
        form({ command: 'srv', sandbox: { ...sandbox, hosts: [emptyArgRow('*'), emptyArgRow('a b')] } }),
      ),
    ).toMatchObject({
      ok: false,
      fieldErrors: { 'sandbox.hosts.0': [expect.any(String)], 'sandbox.hosts.1': [expect.any(String)] },
    });
  });

  it('keeps arguments as an argument vector and puts secret env values in the secrets map only', () => {
    const token = 'ghp_typed_in_the_form_123';
    const result = buildSaveRequest(
      form({
        transport: 'stdio',
        command: 'npx',
        args: [emptyArgRow('-y'), emptyArgRow('@scope/server with space'), emptyArgRow('')],
        env: [
          { ...emptyValueRow(), name: 'GITHUB_TOKEN', ...emptySecretValue(true), value: token },
          { ...emptyValueRow(), name: 'LOG', value: 'debug' },
        ],
      }),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.request.config).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@scope/server with space'],
      env: { GITHUB_TOKEN: { secret: { source: 'store', key: 'env.GITHUB_TOKEN' } }, LOG: 'debug' },
    });
    expect(result.request.secrets).toEqual({ 'env.GITHUB_TOKEN': token });
    expect(JSON.stringify(result.request.config)).not.toContain(token);
  });

  it('requires a value for a new secret, but not for one already stored (edit)', () => {
    const http = form({
      transport: 'streamable_http',
      url: 'https://mcp.example.com/mcp',
      bearerEnabled: true,
      bearer: emptySecretValue(true),
    });
    expect(buildSaveRequest(http)).toMatchObject({
      ok: false,
      fieldErrors: { 'auth.token': ['enter a value (it is stored as a secret)'] },
    });
    const edit = buildSaveRequest({ ...http, mode: 'edit' }, { 'auth.token': 'set' });
    expect(edit).toMatchObject({
      ok: true,
      request: {
        mode: 'update',
        secrets: {},
        config: { auth: { kind: 'bearer', token: { source: 'store', key: 'auth.token' } } },
      },
    });
  });

  it('reports invalid input at its field with the shared schema, and duplicate names', () => {
    const result = buildSaveRequest(
      form({
        transport: 'streamable_http',
        url: 'ftp://example.com',
        timeoutMs: 'soon',
        headers: [
          { ...emptyValueRow(), name: 'X-Team', value: 'a' },
          { ...emptyValueRow(), name: 'x-team', value: 'b' },
        ],
      }),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.fieldErrors.url).toEqual(['must start with http:// or https://']);
    expect(result.fieldErrors.timeoutMs).toEqual(['must be a whole number of milliseconds']);
    expect(Object.values(result.fieldErrors).flat()).toContain('"x-team" appears twice');
  });

  it('sends the longest call time when given, leaves it out when empty, and refuses a bad one at its field', () => {
    const given = buildSaveRequest(form({ transport: 'stdio', command: 'node', maxTotalTimeoutMs: '900000' }));
    expect(given).toMatchObject({ ok: true, request: { config: { maxTotalTimeoutMs: 900_000 } } });
    const empty = buildSaveRequest(form({ transport: 'stdio', command: 'node' }));
    expect(empty.ok && 'maxTotalTimeoutMs' in empty.request.config).toBe(false);
    expect(buildSaveRequest(form({ transport: 'stdio', command: 'node', maxTotalTimeoutMs: '50' }))).toMatchObject({
      ok: false,
      fieldErrors: { maxTotalTimeoutMs: ['at least 100 ms'] },
    });
  });

  it('OAuth (issue 11): a pre-registered client secret goes to the secrets map; the config names the grant, id and scopes', () => {
    const secret = 'cs_typed_in_the_form_456';
    const oauth = {
      ...emptyOAuthForm(),
      clientId: 'my-app',
      secretEnabled: true,
      secret: { ...emptySecretValue(true), value: secret },
      scope: 'read write',
    };
    const result = buildSaveRequest(
      form({ transport: 'streamable_http', url: 'https://mcp.example.com/mcp', oauthEnabled: true, oauth }),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.request.config.auth).toEqual({
      kind: 'oauth',
      grant: 'authorization_code',
      clientId: 'my-app',
      scope: 'read write',
      clientSecret: { source: 'store', key: 'auth.clientSecret' },
    });
    expect(result.request.secrets).toEqual({ 'auth.clientSecret': secret });
    expect(JSON.stringify(result.request.config)).not.toContain(secret);
    // The client-credentials grant needs an id and a secret or key: said at the fields.
    const machine = buildSaveRequest(
      form({
        transport: 'streamable_http',
        url: 'https://mcp.example.com/mcp',
        oauthEnabled: true,
        oauth: { ...emptyOAuthForm(), grant: 'client_credentials' },
      }),
    );
    expect(machine).toMatchObject({
      ok: false,
      fieldErrors: {
        'auth.clientId': ['is required for the client-credentials grant'],
        'auth.clientSecret': ['enter a client secret, or a private key for private_key_jwt'],
      },
    });
  });
});
