/**
 * The four answers to an approval request, each with its accelerator key. Deny is the safe
 * default (it takes the focus in the dialog). From the first click on, every button of that
 * request is disabled: an answer is sent once.
 */
import type { ApprovalAnswer, PendingApproval } from '../../state/slices/approvalsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Spinner } from '../components/Spinner.js';

const ANSWERS: { answer: ApprovalAnswer; label: string; key: string; hint: string }[] = [
  { answer: 'allow-once', label: 'Allow once', key: 'O', hint: 'Run this call only; ask again next time.' },
  {
    answer: 'allow-session',
    label: 'Allow for this session',
    key: 'S',
    hint: 'Run it, and allow this tool without asking until the app restarts.',
  },
  {
    answer: 'allow-always',
    label: 'Always allow',
    key: 'A',
    hint: 'Run it, and save a rule that allows this tool (as it is now) from now on. Revocable in Permissions.',
  },
  { answer: 'deny', label: 'Deny', key: 'D', hint: 'Do not run it. The call fails as denied.' },
];

/** The answer for an accelerator key, if it is one (no modifier held). */
export function answerForKey(event: {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}): ApprovalAnswer | undefined {
  if (event.ctrlKey || event.metaKey || event.altKey) return undefined;
  return ANSWERS.find((a) => a.key.toLowerCase() === event.key.toLowerCase())?.answer;
}

export function ApprovalActions({
  pending,
  autoFocusDeny = false,
}: {
  pending: PendingApproval;
  autoFocusDeny?: boolean;
}) {
  const answer = useAppStore((s) => s.answerApproval);
  const locked = pending.answering !== undefined || pending.ended !== undefined;
  return (
    <div className="approval-actions" role="group" aria-label={`Answer for ${pending.view.toolName}`}>
      {ANSWERS.map((a) => (
        <button
          key={a.answer}
          type="button"
          className={`btn approval-btn ${a.answer === 'deny' ? 'approval-deny' : a.answer === 'allow-once' ? 'btn-primary' : ''}`}
          onClick={() => void answer(pending.view.requestId, a.answer)}
          disabled={locked}
          title={a.hint}
          aria-keyshortcuts={a.key}
          data-autofocus={autoFocusDeny && a.answer === 'deny' ? true : undefined}
          data-answer={a.answer}
        >
          {pending.answering === a.answer && <Spinner label="Sending" />}
          {a.label}
          <kbd className="accel" aria-hidden="true">
            {a.key}
          </kbd>
        </button>
      ))}
    </div>
  );
}
