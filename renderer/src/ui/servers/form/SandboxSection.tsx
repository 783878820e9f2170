/**
 * The server form's Sandbox section (issue 29). A stdio server runs inside sandbox-runtime: the
 * system readable, nothing under the home folder but its own command's folder and what is listed
 * here, a folder of its own (and its roots) writable, no host but the ones listed. Off is a
 * visible choice, explained. An HTTP server is not a process of this app: it says so.
 */
import type { ErrorLookup } from './fieldErrors.js';
import { FieldErrorText } from '../../components/Field.js';
import { ArgsEditor } from './ArgsEditor.js';
import type { SandboxFormState, TransportKind } from './formModel.js';

const READ_WORDS = {
  field: 'sandbox.read',
  list: 'Files it may read',
  item: 'Readable path',
  add: 'Add readable path',
  placeholder: '/home/me/.config/tool',
};
const WRITE_WORDS = {
  field: 'sandbox.write',
  list: 'Files it may write',
  item: 'Writable path',
  add: 'Add writable path',
  placeholder: '/home/me/output',
};
const HOST_WORDS = {
  field: 'sandbox.hosts',
  list: 'Hosts it may reach',
  item: 'Host',
  add: 'Add host',
  placeholder: 'api.example.com:443',
};

export function SandboxSection({
  transport,
  sandbox,
  errors,
  onChange,
}: {
  transport: TransportKind;
  sandbox: SandboxFormState;
  errors: ErrorLookup;
  onChange: (sandbox: SandboxFormState) => void;
}) {
  if (transport !== 'stdio') {
    return (
      <fieldset className="form-section" aria-label="Sandbox">
        <legend>Sandbox</legend>
        <p className="field-hint sandbox-http-note">
          An HTTP server runs elsewhere — on its own machine or as its own process — not as a process of this app, so
          this app cannot sandbox it. Its calls still go through your permissions.
        </p>
      </fieldset>
    );
  }
  const edit = (patch: Partial<SandboxFormState>) => onChange({ ...sandbox, ...patch, present: true });
  return (
    <fieldset className="form-section" aria-label="Sandbox">
      <legend>Sandbox</legend>
      <label className="checkbox-row">
        <input
          type="checkbox"
          aria-label="Run in a sandbox"
          checked={sandbox.enabled}
          onChange={(e) => edit({ enabled: e.target.checked })}
        />
        <span>
          <span className="checkbox-label">Run in a sandbox</span>
          <span className="field-hint">
            It may read the system and its own program’s folder, not your home folder; write only a folder of its own
            and its roots; reach no host. A host it tries that is not listed is asked about, like a tool call.
          </span>
        </span>
      </label>
      {!sandbox.enabled && (
        <p className="callout callout-warning sandbox-off-note" role="note">
          Not sandboxed: this server will run with all your rights — it can read your files (SSH keys, this app’s
          secrets), write anywhere you can and reach any host, without making a tool call. Turn the sandbox off only for
          a server you trust, or one that cannot run sandboxed.
        </p>
      )}
      <fieldset className="form-subsection" disabled={!sandbox.enabled}>
        <legend>Files it may read</legend>
        <p className="field-hint">Absolute paths under your home folder (or elsewhere hidden) it may read.</p>
        <ArgsEditor rows={sandbox.read} errors={errors} words={READ_WORDS} onChange={(read) => edit({ read })} />
        <FieldErrorText id="server-sandbox-read" errors={errors.at('sandbox.read')} />
      </fieldset>
      <fieldset className="form-subsection" disabled={!sandbox.enabled}>
        <legend>Files it may write</legend>
        <p className="field-hint">Besides its own folder and its roots.</p>
        <ArgsEditor rows={sandbox.write} errors={errors} words={WRITE_WORDS} onChange={(write) => edit({ write })} />
        <FieldErrorText id="server-sandbox-write" errors={errors.at('sandbox.write')} />
      </fieldset>
      <fieldset className="form-subsection" disabled={!sandbox.enabled}>
        <legend>Hosts it may reach</legend>
        <p className="field-hint">
          <code>host[:port]</code>, <code>*.domain</code>, an IP address or <code>[IPv6]</code>; no port means any port.
          An “Always allow” answer adds its host here.
        </p>
        <ArgsEditor rows={sandbox.hosts} errors={errors} words={HOST_WORDS} onChange={(hosts) => edit({ hosts })} />
        <FieldErrorText id="server-sandbox-hosts" errors={errors.at('sandbox.hosts')} />
      </fieldset>
    </fieldset>
  );
}
