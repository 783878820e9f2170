/**
 * The server form's draft and its checks: the fields as typed, the request they build, the field
 * errors (the form's own after the first attempt, main's until the field is edited) and the save.
 */
import { useMemo, useState } from 'react';
import type { ServerView } from '../../../../../shared/contract.js';
import type { FieldErrors } from '../../../../../shared/serverConfig.js';
import { BridgeError, messageOf } from '../../../bridge/index.js';
import { serverIdOf } from '../../../lib/serverView.js';
import { useAppStore } from '../../../state/useAppStore.js';
import type { ErrorLookup } from './fieldErrors.js';
import { errorLookup, mergeErrors, unclaimedErrors, withoutErrorsFor } from './fieldErrors.js';
import type { ServerFormState } from './formModel.js';
import { buildSaveRequest } from './buildRequest.js';
import { emptyForm, formFromServer, rowErrorKey, slugify } from './formModel.js';

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

/** One wording for settings refused, by the form or by main: what happened, and what to do. */
export const INVALID_SETTINGS = 'Some settings are not valid; nothing was saved. Correct the highlighted fields.';

/** Applies an edit to the draft; `touched` names the fields whose errors from main it clears. */
type UpdateForm = (patch: Partial<ServerFormState>, touched: string[]) => void;

function focusFirstInvalid(): void {
  // After React has rendered the messages.
  requestAnimationFrame(() => {
    document.querySelector<HTMLElement>('.dialog [aria-invalid="true"]')?.focus();
  });
}

export function useServerForm(server: ServerView | undefined, focusSlot: string | undefined, onClose: () => void) {
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
  const update: UpdateForm = (patch, touched) => {
    setForm((f) => ({ ...f, ...patch }));
    if (touched.length) setServerErrors((e) => withoutErrorsFor(e, touched));
  };

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

  return { form, states, errors, general, failure, saving, invalid: attempted && !built.ok, update, onName, submit };
}

/** What each part of the form gets: the draft, its errors, the stored secrets, and the edit. */
export interface SectionProps {
  form: ServerFormState;
  errors: ErrorLookup;
  states: ServerView['secrets'];
  focusSlot: string | undefined;
  update: UpdateForm;
}
