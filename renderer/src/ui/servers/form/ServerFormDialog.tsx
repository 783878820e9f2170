/**
 * Add or edit a server. Validates with the shared schema before anything is sent, shows main's
 * field errors at the field they belong to, and sends secret values write-only (buildRequest.ts).
 */
import { useMemo, useState } from 'react';
import type { ServerView } from '../../../../../shared/contract.js';
import type { FieldErrors } from '../../../../../shared/serverConfig.js';
import { BridgeError, messageOf } from '../../../bridge/index.js';
import { serverIdOf, serverNameOf } from '../../../lib/serverView.js';
import { useAppStore } from '../../../state/useAppStore.js';
import { ValidationBanner } from '../../components/ValidationBanner.js';
import { Dialog } from '../../components/Dialog.js';
import { Icon } from '../../components/Icon.js';
import { Spinner } from '../../components/Spinner.js';
import { ArgsEditor } from './ArgsEditor.js';
import { SandboxSection } from './SandboxSection.js';
import { buildSaveRequest } from './buildRequest.js';
import { Field, FieldErrorText, controlProps } from '../../components/Field.js';
import type { ErrorLookup } from './fieldErrors.js';
import { errorLookup, mergeErrors, unclaimedErrors, withoutErrorsFor } from './fieldErrors.js';
import type { ServerFormState, TransportKind } from './formModel.js';
import { BEARER_SLOT, emptyForm, formFromServer, rowErrorKey, slugify } from './formModel.js';
import { OAuthFields } from './OAuthFields.js';
import { SecretInput } from './SecretInput.js';
import { ValueRowsEditor } from './ValueRowsEditor.js';

const STATIC_FIELDS = [
  'name',
  'id',
  'transport',
  'command',
  'args',
  'cwd',
  'env',
  'url',
  'headers',
  'timeoutMs',
  'maxTotalTimeoutMs',
  'priority',
  'protocolEra',
  'enabled',
  'trusted',
  'roots',
];

const ROOT_WORDS = {
  field: 'roots',
  list: 'Roots',
  item: 'Folder',
  add: 'Add folder',
  placeholder: '/home/me/project',
};

function focusFirstInvalid(): void {
  // After React has rendered the messages.
  requestAnimationFrame(() => {
    document.querySelector<HTMLElement>('.dialog [aria-invalid="true"]')?.focus();
  });
}

/** One wording for settings refused, by the form or by main: what happened, and what to do. */
const INVALID_SETTINGS = 'Some settings are not valid; nothing was saved. Correct the highlighted fields.';

export function ServerFormDialog({
  server,
  focusSlot,
  onClose,
}: {
  server: ServerView | undefined;
  focusSlot: string | undefined;
  onClose: () => void;
}) {
  const saveServer = useAppStore((s) => s.saveServer);
  const selectServer = useAppStore((s) => s.selectServer);
  const notify = useAppStore((s) => s.notify);
  const [form, setForm] = useState<ServerFormState>(() => (server ? formFromServer(server, focusSlot) : emptyForm()));
  const [attempted, setAttempted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);

  const states = useMemo(() => server?.secrets ?? {}, [server]);
  const built = useMemo(() => buildSaveRequest(form, states), [form, states]);
  // Client-side messages appear after the first attempt and then follow every edit.
  const clientErrors = attempted && !built.ok ? built.fieldErrors : {};
  const allErrors = mergeErrors(clientErrors, serverErrors);
  const errors: ErrorLookup = errorLookup(allErrors);
  const rowClaims = [...form.env.map(rowErrorKey), ...form.headers.map(rowErrorKey)];
  const general = unclaimedErrors(allErrors, {
    exact: [...STATIC_FIELDS, ...rowClaims],
    nested: [
      'auth',
      'args',
      'roots',
      'sandbox',
      ...(form.transport === 'stdio'
        ? form.env.map((r) => `env.${r.name.trim()}`)
        : form.headers.map((r) => `headers.${r.name.trim()}`)),
    ],
  });

  /** Applies an edit; main's errors for the edited fields go away (they may no longer apply). */
  function update(patch: Partial<ServerFormState>, touched: string[]): void {
    setForm((f) => ({ ...f, ...patch }));
    if (touched.length) setServerErrors((e) => withoutErrorsFor(e, touched));
  }

  function onName(name: string): void {
    update({ name, ...(form.mode === 'create' && !form.idEdited ? { id: slugify(name) } : {}) }, ['name', 'id']);
  }

  async function submit(): Promise<void> {
    setAttempted(true);
    setFailure(undefined);
    if (!built.ok) {
      focusFirstInvalid();
      return;
    }
    setSaving(true);
    try {
      const view = await saveServer(built.request);
      notify('success', form.mode === 'create' ? `Added ${form.name.trim()}.` : `Saved ${form.name.trim()}.`);
      selectServer(serverIdOf(view));
      onClose();
    } catch (error) {
      if (error instanceof BridgeError && Object.keys(error.fieldErrors).length > 0) {
        // Fields main refused read like fields the form refused: the same banner, the errors at their fields.
        setServerErrors(error.fieldErrors);
        setFailure(INVALID_SETTINGS);
        focusFirstInvalid();
      } else {
        setFailure(messageOf(error));
      }
    } finally {
      setSaving(false);
    }
  }

  const isEdit = form.mode === 'edit';
  const nameErrors = errors.at('name');
  const idErrors = errors.at('id');

  return (
    <Dialog
      title={isEdit && server ? `Edit ${serverNameOf(server)}` : 'Add server'}
      description={isEdit ? undefined : 'Connect a local program over stdio, or a remote server over Streamable HTTP.'}
      size="large"
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={
        <>
          <span className="dialog-footer-note">
            <Icon name="lock" size={14} /> Secret values are write-only: stored once, never shown again.
          </span>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={saving}>
            {saving && <Spinner label="Saving" />}
            {isEdit ? 'Save changes' : 'Add server'}
          </button>
        </>
      }
    >
      {(failure || general.length > 0) && <ValidationBanner title={failure ?? INVALID_SETTINGS} problems={general} />}
      {attempted && !built.ok && !failure && general.length === 0 && <ValidationBanner title={INVALID_SETTINGS} />}

      <fieldset className="form-section">
        <legend>General</legend>
        <div className="form-grid">
          <Field id="server-name" label="Name" errors={nameErrors}>
            <input
              className="input"
              value={form.name}
              onChange={(e) => onName(e.target.value)}
              autoComplete="off"
              data-autofocus={!focusSlot || undefined}
              {...controlProps('server-name', nameErrors)}
            />
          </Field>
          <Field
            id="server-id"
            label="ID"
            errors={idErrors}
            hint={isEdit ? 'The id cannot change.' : 'Names its tools and logs; derived from the name.'}
          >
            <input
              className="input mono"
              value={form.id}
              readOnly={isEdit}
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => update({ id: e.target.value, idEdited: true }, ['id'])}
              {...controlProps('server-id', idErrors, true)}
            />
          </Field>
        </div>
        <TransportPicker
          value={form.transport}
          onChange={(transport) => update({ transport }, ['transport'])}
          errors={errors.at('transport')}
        />
      </fieldset>

      {form.transport === 'stdio' ? (
        <StdioFields form={form} errors={errors} states={states} focusSlot={focusSlot} update={update} />
      ) : (
        <HttpFields form={form} errors={errors} states={states} focusSlot={focusSlot} update={update} />
      )}

      <fieldset className="form-section">
        <legend>Behaviour</legend>
        <div className="form-grid form-grid-4">
          <Field
            id="server-timeout"
            label="Timeout (ms)"
            errors={errors.at('timeoutMs')}
            hint="For connecting and for each request."
          >
            <input
              className="input"
              inputMode="numeric"
              value={form.timeoutMs}
              onChange={(e) => update({ timeoutMs: e.target.value }, ['timeoutMs'])}
              {...controlProps('server-timeout', errors.at('timeoutMs'), true)}
            />
          </Field>
          <Field
            id="server-max-total"
            label="Longest call (ms)"
            errors={errors.at('maxTotalTimeoutMs')}
            hint="While a tool reports progress; empty: 10 minutes."
          >
            <input
              className="input"
              inputMode="numeric"
              placeholder="600000"
              value={form.maxTotalTimeoutMs}
              onChange={(e) => update({ maxTotalTimeoutMs: e.target.value }, ['maxTotalTimeoutMs'])}
              {...controlProps('server-max-total', errors.at('maxTotalTimeoutMs'), true)}
            />
          </Field>
          <Field
            id="server-priority"
            label="Priority"
            errors={errors.at('priority')}
            hint="Higher wins a tool-name conflict."
          >
            <input
              className="input"
              inputMode="numeric"
              value={form.priority}
              onChange={(e) => update({ priority: e.target.value }, ['priority'])}
              {...controlProps('server-priority', errors.at('priority'), true)}
            />
          </Field>
          <Field
            id="server-protocol-era"
            label="Protocol era"
            errors={errors.at('protocolEra')}
            hint="Automatic asks the server; pin it for a server that misbehaves on the question."
          >
            <select
              className="input"
              value={form.protocolEra}
              onChange={(e) =>
                update({ protocolEra: e.target.value as ServerFormState['protocolEra'] }, ['protocolEra'])
              }
              {...controlProps('server-protocol-era', errors.at('protocolEra'), false)}
            >
              <option value="auto">Automatic</option>
              <option value="legacy">Legacy (2025, initialize)</option>
              <option value="modern">Modern (2026-07-28)</option>
            </select>
          </Field>
        </div>
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={form.enabled}
            onChange={(e) => update({ enabled: e.target.checked }, ['enabled'])}
          />
          <span>
            <span className="checkbox-label">Enabled</span>
            <span className="field-hint">Connect it and offer its tools.</span>
          </span>
        </label>
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={form.trusted}
            onChange={(e) => update({ trusted: e.target.checked }, ['trusted'])}
          />
          <span>
            <span className="checkbox-label">Trusted</span>
            <span className="field-hint">
              Let its tool annotations (such as read-only) set default permissions. Leave off for servers you do not
              control.
            </span>
          </span>
        </label>
      </fieldset>

      <fieldset className="form-section">
        <legend>Roots</legend>
        <p className="field-hint">
          Folders the server is told it may work in (MCP roots), one absolute path per row. They guide the server; they
          are not a boundary by themselves — a sandboxed local server may write its roots (Sandbox, below). A connected
          server is told about a change at once.
        </p>
        <ArgsEditor
          rows={form.roots}
          errors={errors}
          words={ROOT_WORDS}
          onChange={(roots) => update({ roots }, ['roots'])}
        />
        <FieldErrorText id="server-roots" errors={errors.at('roots')} />
      </fieldset>

      <SandboxSection
        transport={form.transport}
        sandbox={form.sandbox}
        errors={errors}
        onChange={(sandbox) => update({ sandbox }, ['sandbox'])}
      />
    </Dialog>
  );
}

function TransportPicker({
  value,
  onChange,
  errors,
}: {
  value: TransportKind;
  onChange: (t: TransportKind) => void;
  errors: string[];
}) {
  const options: { key: TransportKind; title: string; text: string; icon: 'terminal' | 'globe' }[] = [
    { key: 'stdio', title: 'Local process (stdio)', text: 'Starts a program on this machine.', icon: 'terminal' },
    { key: 'streamable_http', title: 'Remote (Streamable HTTP)', text: 'Talks to a server at a URL.', icon: 'globe' },
  ];
  return (
    <div className="field">
      <div className="choice-group" role="radiogroup" aria-label="Transport">
        {options.map((o) => (
          <label key={o.key} className={`choice ${value === o.key ? 'is-selected' : ''}`}>
            <input
              type="radio"
              name="transport"
              value={o.key}
              checked={value === o.key}
              onChange={() => onChange(o.key)}
            />
            <Icon name={o.icon} size={20} />
            <span>
              <span className="choice-title">{o.title}</span>
              <span className="choice-text">{o.text}</span>
            </span>
          </label>
        ))}
      </div>
      <FieldErrorText id="server-transport" errors={errors} />
    </div>
  );
}

interface SectionProps {
  form: ServerFormState;
  errors: ErrorLookup;
  states: ServerView['secrets'];
  focusSlot: string | undefined;
  update: (patch: Partial<ServerFormState>, touched: string[]) => void;
}

function StdioFields({ form, errors, states, focusSlot, update }: SectionProps) {
  return (
    <fieldset className="form-section">
      <legend>Process</legend>
      <Field
        id="server-command"
        label="Command"
        errors={errors.at('command')}
        hint="The program to run — a path or a name on PATH. It is started directly, never through a shell."
      >
        <input
          className="input mono"
          value={form.command}
          spellCheck={false}
          autoComplete="off"
          placeholder="/usr/bin/node"
          onChange={(e) => update({ command: e.target.value }, ['command'])}
          {...controlProps('server-command', errors.at('command'), true)}
        />
      </Field>
      <div className="field">
        <span className="field-label" id="args-label">
          Arguments
        </span>
        <p className="field-hint">One argument per row, exactly as the program receives it — no quoting needed.</p>
        <ArgsEditor rows={form.args} errors={errors} onChange={(args) => update({ args }, ['args'])} />
        <FieldErrorText id="server-args" errors={errors.at('args')} />
      </div>
      <Field id="server-cwd" label="Working directory" optional errors={errors.under('cwd')}>
        <input
          className="input mono"
          value={form.cwd}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => update({ cwd: e.target.value }, ['cwd'])}
          {...controlProps('server-cwd', errors.under('cwd'))}
        />
      </Field>
      <div className="field">
        <span className="field-label">Environment variables</span>
        <p className="field-hint">
          Mark a value as secret to store it in the secret store; the configuration then holds only a reference.
        </p>
        <ValueRowsEditor
          kind="env"
          rows={form.env}
          states={states}
          errors={errors}
          focusSlot={focusSlot}
          onChange={(env, touched) => update({ env }, touched)}
        />
        <FieldErrorText id="server-env" errors={errors.at('env')} />
      </div>
    </fieldset>
  );
}

function HttpFields({ form, errors, states, focusSlot, update }: SectionProps) {
  const bearerErrors = form.bearerEnabled ? errors.under('auth') : [];
  return (
    <fieldset className="form-section">
      <legend>Endpoint</legend>
      <Field
        id="server-url"
        label="URL"
        errors={errors.at('url')}
        hint="The server’s Streamable HTTP endpoint, for example https://example.com/mcp."
      >
        <input
          className="input mono"
          type="url"
          value={form.url}
          spellCheck={false}
          autoComplete="off"
          placeholder="https://example.com/mcp"
          onChange={(e) => update({ url: e.target.value }, ['url'])}
          {...controlProps('server-url', errors.at('url'), true)}
        />
      </Field>
      <div className="field">
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={form.bearerEnabled}
            onChange={(e) =>
              update({ bearerEnabled: e.target.checked, ...(e.target.checked ? { oauthEnabled: false } : {}) }, [
                'auth',
              ])
            }
          />
          <span>
            <span className="checkbox-label">Bearer token</span>
            <span className="field-hint">Sent as “Authorization: Bearer …”. Stored as a secret.</span>
          </span>
        </label>
        {form.bearerEnabled && (
          <div className="indented">
            <SecretInput
              id="server-bearer"
              label="Bearer token"
              state={form.bearer}
              stored={states[BEARER_SLOT]}
              invalid={bearerErrors.length > 0}
              describedBy={bearerErrors.length ? 'server-bearer-error' : undefined}
              autoFocus={focusSlot === BEARER_SLOT}
              onChange={(patch) => update({ bearer: { ...form.bearer, ...patch } }, ['auth'])}
            />
            <FieldErrorText id="server-bearer" errors={bearerErrors} />
          </div>
        )}
      </div>
      <div className="field">
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={form.oauthEnabled}
            onChange={(e) =>
              update({ oauthEnabled: e.target.checked, ...(e.target.checked ? { bearerEnabled: false } : {}) }, [
                'auth',
              ])
            }
          />
          <span>
            <span className="checkbox-label">OAuth sign-in</span>
            <span className="field-hint">
              Sign in with your account at the server (OAuth 2.1). Tokens are kept in the secret store and renewed by
              the app.
            </span>
          </span>
        </label>
        {form.oauthEnabled && (
          <OAuthFields
            oauth={form.oauth}
            errors={errors}
            states={states}
            focusSlot={focusSlot}
            onChange={(patch) => update({ oauth: { ...form.oauth, ...patch } }, ['auth'])}
          />
        )}
      </div>
      <div className="field">
        <span className="field-label">Headers</span>
        <p className="field-hint">
          Extra request headers. Authorization, Content-Type and the MCP headers are set by the app.
        </p>
        <ValueRowsEditor
          kind="headers"
          rows={form.headers}
          states={states}
          errors={errors}
          focusSlot={focusSlot}
          onChange={(headers, touched) => update({ headers }, touched)}
        />
        <FieldErrorText id="server-headers" errors={errors.at('headers')} />
      </div>
    </fieldset>
  );
}
