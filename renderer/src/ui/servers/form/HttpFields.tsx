/** The form's Endpoint part, for a remote (Streamable HTTP) server: URL, sign-in (bearer or OAuth), headers. */
import { Field, FieldErrorText, controlProps } from '../../components/Field.js';
import { BEARER_SLOT } from './formModel.js';
import { OAuthFields } from './OAuthFields.js';
import { SecretInput } from './SecretInput.js';
import type { SectionProps } from './useServerForm.js';
import { ValueRowsEditor } from './ValueRowsEditor.js';

export function HttpFields({ form, errors, states, focusSlot, update }: SectionProps) {
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
      <SignInFields form={form} errors={errors} states={states} focusSlot={focusSlot} update={update} />
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

/** Sign-in to the server: a bearer token or OAuth, one at a time. */
function SignInFields({ form, errors, states, focusSlot, update }: SectionProps) {
  const bearerErrors = form.bearerEnabled ? errors.under('auth') : [];
  return (
    <>
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
    </>
  );
}
