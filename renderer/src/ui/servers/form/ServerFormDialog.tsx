/**
 * Add or edit a server. Validates with the shared schema before anything is sent, shows main's
 * field errors at the field they belong to, and sends secret values write-only (buildRequest.ts).
 * The draft and its checks live in useServerForm.ts; each part of the form has its own file.
 */
import type { ServerView } from '../../../../../shared/contract.js';
import { serverNameOf } from '../../../lib/serverView.js';
import { Dialog } from '../../components/Dialog.js';
import { Icon } from '../../components/Icon.js';
import { Spinner } from '../../components/Spinner.js';
import { ValidationBanner } from '../../components/ValidationBanner.js';
import { BehaviourSection } from './BehaviourSection.js';
import { GeneralSection } from './GeneralSection.js';
import { HttpFields } from './HttpFields.js';
import { RootsSection } from './RootsSection.js';
import { SandboxSection } from './SandboxSection.js';
import { StdioFields } from './StdioFields.js';
import { INVALID_SETTINGS, useServerForm } from './useServerForm.js';

export function ServerFormDialog({
  server,
  focusSlot,
  onClose,
}: {
  server: ServerView | undefined;
  focusSlot: string | undefined;
  onClose: () => void;
}) {
  const { form, states, errors, general, failure, saving, invalid, update, onName, submit } = useServerForm(
    server,
    focusSlot,
    onClose,
  );
  const isEdit = form.mode === 'edit';
  const section = { form, errors, states, focusSlot, update };

  return (
    <Dialog
      title={isEdit && server ? `Edit ${serverNameOf(server)}` : 'Add server'}
      description={isEdit ? undefined : 'Connect a local program over stdio, or a remote server over Streamable HTTP.'}
      size="large"
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={<FormFooter isEdit={isEdit} saving={saving} onClose={onClose} />}
    >
      {(failure || general.length > 0) && <ValidationBanner title={failure ?? INVALID_SETTINGS} problems={general} />}
      {invalid && !failure && general.length === 0 && <ValidationBanner title={INVALID_SETTINGS} />}

      <GeneralSection form={form} errors={errors} focusSlot={focusSlot} update={update} onName={onName} />
      {form.transport === 'stdio' ? <StdioFields {...section} /> : <HttpFields {...section} />}
      <BehaviourSection form={form} errors={errors} update={update} />
      <RootsSection form={form} errors={errors} update={update} />
      <SandboxSection
        transport={form.transport}
        sandbox={form.sandbox}
        errors={errors}
        onChange={(sandbox) => update({ sandbox }, ['sandbox'])}
      />
    </Dialog>
  );
}

function FormFooter({ isEdit, saving, onClose }: { isEdit: boolean; saving: boolean; onClose: () => void }) {
  return (
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
  );
}
