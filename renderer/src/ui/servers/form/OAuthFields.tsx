/**
 * The OAuth part of an HTTP server's form. By default the app registers itself with
 * the server's authorization server and the person signs in in the browser; a pre-registered
 * client (id and secret), the client-credentials grant (a secret or a private key) and the
 * scopes are optional. Secrets are write-only, like the bearer token.
 */
import { JWT_SIGNING_ALGORITHMS } from '../../../../../shared/serverConfig.js';
import type { ServerView } from '../../../../../shared/contract.js';
import { Field, FieldErrorText, controlProps } from '../../components/Field.js';
import type { ErrorLookup } from './fieldErrors.js';
import type { OAuthFormState, SecretValueState } from './formModel.js';
import { OAUTH_KEY_SLOT, OAUTH_SECRET_SLOT } from './formModel.js';
import { SecretInput } from './SecretInput.js';

interface Props {
  oauth: OAuthFormState;
  errors: ErrorLookup;
  states: ServerView['secrets'];
  focusSlot: string | undefined;
  onChange: (patch: Partial<OAuthFormState>) => void;
}

function SecretField({
  id,
  label,
  slot,
  state,
  props,
  onChange,
}: {
  id: string;
  label: string;
  slot: string;
  state: SecretValueState;
  props: Props;
  onChange: (patch: Partial<SecretValueState>) => void;
}) {
  const errors = props.errors.under(slot);
  return (
    <div className="indented">
      <SecretInput
        id={id}
        label={label}
        state={state}
        stored={props.states[slot]}
        invalid={errors.length > 0}
        describedBy={errors.length ? `${id}-error` : undefined}
        autoFocus={props.focusSlot === slot}
        onChange={onChange}
      />
      <FieldErrorText id={id} errors={errors} />
    </div>
  );
}

/** Client credentials: an optional private key (private_key_jwt) and its signing algorithm. */
function PrivateKeyFields(props: Props) {
  const { oauth, errors, onChange } = props;
  return (
    <>
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={oauth.keyEnabled}
          onChange={(e) => onChange({ keyEnabled: e.target.checked })}
        />
        <span>
          <span className="checkbox-label">Private key (private_key_jwt)</span>
          <span className="field-hint">A PKCS#8 PEM key that signs the app’s assertion; stored as a secret.</span>
        </span>
      </label>
      {!oauth.keyEnabled && <FieldErrorText id="server-oauth-key" errors={errors.under(OAUTH_KEY_SLOT)} />}
      {oauth.keyEnabled && (
        <>
          <SecretField
            id="server-oauth-key"
            label="Private key"
            slot={OAUTH_KEY_SLOT}
            state={oauth.privateKey}
            props={props}
            onChange={(patch) => onChange({ privateKey: { ...oauth.privateKey, ...patch } })}
          />
          <Field
            id="server-oauth-alg"
            label="Signing algorithm"
            optional
            errors={errors.under('auth.signingAlgorithm')}
          >
            <select
              className="input"
              value={oauth.signingAlgorithm}
              onChange={(e) => onChange({ signingAlgorithm: e.target.value })}
              {...controlProps('server-oauth-alg', errors.under('auth.signingAlgorithm'))}
            >
              <option value="">ES256 (default)</option>
              {JWT_SIGNING_ALGORITHMS.map((alg) => (
                <option key={alg} value={alg}>
                  {alg}
                </option>
              ))}
            </select>
          </Field>
        </>
      )}
    </>
  );
}

/** A person's browser sign-in: the client metadata document and a pre-registered client's redirect port. */
function RedirectFields({ oauth, errors, onChange }: Props) {
  return (
    <div className="form-grid">
      <Field
        id="server-oauth-cimd"
        label="Client metadata document URL"
        optional
        errors={errors.under('auth.clientMetadataUrl')}
        hint="An https URL where this app’s client metadata is published; used as its client id where the server supports it."
      >
        <input
          className="input mono"
          type="url"
          value={oauth.clientMetadataUrl}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => onChange({ clientMetadataUrl: e.target.value })}
          {...controlProps('server-oauth-cimd', errors.under('auth.clientMetadataUrl'), true)}
        />
      </Field>
      <Field
        id="server-oauth-port"
        label="Redirect port"
        optional
        errors={errors.under('auth.redirectPort')}
        hint="For a pre-registered client whose redirect URI names a port on 127.0.0.1."
      >
        <input
          className="input"
          inputMode="numeric"
          value={oauth.redirectPort}
          onChange={(e) => onChange({ redirectPort: e.target.value })}
          {...controlProps('server-oauth-port', errors.under('auth.redirectPort'), true)}
        />
      </Field>
    </div>
  );
}

export function OAuthFields(props: Props) {
  const { oauth, errors, onChange } = props;
  const machine = oauth.grant === 'client_credentials';
  return (
    <div className="indented oauth-fields">
      <Field id="server-oauth-grant" label="How to sign in" errors={errors.under('auth.grant')}>
        <select
          className="input"
          value={oauth.grant}
          onChange={(e) =>
            onChange({ grant: e.target.value === 'client_credentials' ? 'client_credentials' : 'authorization_code' })
          }
          {...controlProps('server-oauth-grant', errors.under('auth.grant'))}
        >
          <option value="authorization_code">A person signs in in the browser</option>
          <option value="client_credentials">The app signs in with its own credentials (client credentials)</option>
        </select>
      </Field>
      <Field
        id="server-oauth-client-id"
        label="Client ID"
        optional={!machine}
        errors={errors.under('auth.clientId')}
        hint={
          machine
            ? 'The id the authorization server gave this app.'
            : 'Only for a client registered in advance; otherwise the app registers itself.'
        }
      >
        <input
          className="input mono"
          value={oauth.clientId}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => onChange({ clientId: e.target.value })}
          {...controlProps('server-oauth-client-id', errors.under('auth.clientId'), true)}
        />
      </Field>
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={oauth.secretEnabled}
          onChange={(e) => onChange({ secretEnabled: e.target.checked })}
        />
        <span>
          <span className="checkbox-label">Client secret</span>
          <span className="field-hint">Stored as a secret; sent only to the authorization server.</span>
        </span>
      </label>
      {!oauth.secretEnabled && <FieldErrorText id="server-oauth-secret" errors={errors.under(OAUTH_SECRET_SLOT)} />}
      {oauth.secretEnabled && (
        <SecretField
          id="server-oauth-secret"
          label="Client secret"
          slot={OAUTH_SECRET_SLOT}
          state={oauth.secret}
          props={props}
          onChange={(patch) => onChange({ secret: { ...oauth.secret, ...patch } })}
        />
      )}
      {machine && <PrivateKeyFields {...props} />}
      <Field
        id="server-oauth-scope"
        label="Scopes"
        optional
        errors={errors.under('auth.scope')}
        hint="Space-separated; used when the server names none."
      >
        <input
          className="input mono"
          value={oauth.scope}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => onChange({ scope: e.target.value })}
          {...controlProps('server-oauth-scope', errors.under('auth.scope'), true)}
        />
      </Field>
      {!machine && <RedirectFields {...props} />}
    </div>
  );
}
