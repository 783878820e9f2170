/**
 * "Resolve by hand": a call that started but whose result was never recorded. MiniHarness cannot
 * know whether the tool acted on the remote side; the person checks there, then records either
 * "it did not happen" (failed, with an optional note) or "it happened" (its result as text).
 */
import { useState } from 'react';
import type { HistoryRecordView } from '../../../../shared/contract.js';
import { formatDateTime } from '../../lib/format.js';
import type { Resolution } from '../../state/slices/historySlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { ValidationBanner } from '../components/ValidationBanner.js';
import { Dialog } from '../components/Dialog.js';
import { describeFailure } from '../../lib/describeError.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';

type Choice = 'failed' | 'completed';

const OPTIONS: { key: Choice; title: string; text: string }[] = [
  {
    key: 'failed',
    title: 'It did not happen',
    text: 'Mark the call as failed. It is never replayed; run it again as a new call if needed.',
  },
  {
    key: 'completed',
    title: 'It happened',
    text: 'Record its result. Replaying this call then returns that result.',
  },
];

function ChoiceGroup({ choice, onChange }: { choice: Choice; onChange: (choice: Choice) => void }) {
  return (
    <div className="choice-group" role="radiogroup" aria-label="How did the call end?">
      {OPTIONS.map((o) => (
        <label key={o.key} className={`choice ${choice === o.key ? 'is-selected' : ''}`}>
          <input
            type="radio"
            name="resolution"
            value={o.key}
            checked={choice === o.key}
            onChange={() => onChange(o.key)}
          />
          <Icon name={o.key === 'failed' ? 'close' : 'check'} size={20} />
          <span>
            <span className="choice-title">{o.title}</span>
            <span className="choice-text">{o.text}</span>
          </span>
        </label>
      ))}
    </div>
  );
}

/** "It happened": the result as the person found it (required). */
function ResultField({
  value,
  onChange,
  invalid,
}: {
  value: string;
  onChange: (value: string) => void;
  invalid: boolean;
}) {
  return (
    <div className={`field ${invalid ? 'has-error' : ''}`}>
      <label className="field-label" htmlFor="resolve-result">
        Result
      </label>
      <textarea
        id="resolve-result"
        className="input textarea mono"
        rows={5}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={invalid ? true : undefined}
        aria-describedby="resolve-result-hint"
      />
      <p id="resolve-result-hint" className="field-hint">
        What the tool returned, as you found it. Stored as the call’s text result.
      </p>
      {invalid && <p className="field-error">Enter the result, or choose “It did not happen”.</p>}
    </div>
  );
}

export function ResolveDialog({ record, onClose }: { record: HistoryRecordView; onClose: () => void }) {
  const resolveCall = useAppStore((s) => s.resolveCall);
  const notify = useAppStore((s) => s.notify);
  const [choice, setChoice] = useState<Choice>('failed');
  const [note, setNote] = useState('');
  const [resultText, setResultText] = useState('');
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<{ title: string; message: string } | undefined>(undefined);

  const resultMissing = choice === 'completed' && resultText.trim() === '';

  async function submit(): Promise<void> {
    setAttempted(true);
    if (resultMissing) return;
    const trimmedNote = note.trim();
    const resolution: Resolution =
      choice === 'failed'
        ? { status: 'failed', ...(trimmedNote ? { note: trimmedNote } : {}) }
        : { status: 'completed', resultText, ...(trimmedNote ? { note: trimmedNote } : {}) };
    setSaving(true);
    setFailure(undefined);
    try {
      await resolveCall(record, resolution);
      notify(
        'success',
        choice === 'failed' ? `Marked ${record.toolName} as failed.` : `Recorded the result of ${record.toolName}.`,
      );
      onClose();
    } catch (error) {
      const described = describeFailure(error, 'Could not resolve the call');
      setFailure({ title: described.title, message: described.text });
      setSaving(false);
    }
  }

  return (
    <Dialog
      title="Resolve this call by hand"
      description={
        <>
          <code>{record.toolName}</code> on <code>{record.serverId}</code>, started {formatDateTime(record.createdAt)}
        </>
      }
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose} data-autofocus>
            Cancel
          </button>
          <button
            type="submit"
            className={choice === 'failed' ? 'btn btn-danger' : 'btn btn-primary'}
            disabled={saving}
          >
            {saving && <Spinner label="Saving" />}
            {choice === 'failed' ? 'Mark as failed' : 'Record result'}
          </button>
        </>
      }
    >
      <Callout tone="warning" title="Check the remote side first">
        This call started, but no result was recorded — the app may have stopped, or the server may never have answered.
        MiniHarness cannot know whether the tool did something. Look where it acts (the file, the ticket, the message,
        the payment…) before you decide; your answer is final.
      </Callout>
      {failure && <ValidationBanner title={failure.title} message={failure.message} />}
      <ChoiceGroup choice={choice} onChange={setChoice} />
      {choice === 'completed' && (
        <ResultField value={resultText} onChange={setResultText} invalid={attempted && resultMissing} />
      )}
      <div className="field">
        <label className="field-label" htmlFor="resolve-note">
          Note <span className="field-optional">optional</span>
        </label>
        <textarea
          id="resolve-note"
          className="input textarea"
          rows={2}
          maxLength={1000}
          value={note}
          placeholder="What you checked, for example “no file was written”"
          onChange={(e) => setNote(e.target.value)}
        />
      </div>
    </Dialog>
  );
}
