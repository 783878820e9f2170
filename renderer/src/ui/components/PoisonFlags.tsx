/**
 * A tool's poisoning flags (issue 31): a warning naming each passage of its definition that looks
 * aimed at the model rather than at you. Shown on the tool, in its detail and in every approval
 * for it; it never blocks by itself (Permissions has a rule for that).
 */
import type { PoisonFlagView } from '../../../../shared/contract.js';

const KIND_WORDS: Record<PoisonFlagView['kind'], string> = {
  invisible_unicode: 'Invisible or direction-changing characters',
  hidden_markup: 'Text hidden by markup',
  model_instruction: 'Instructions to the model',
  other_server_tool: 'Mentions another server’s tool',
  exfil_url: 'Somewhere to send data to',
};

export function PoisonFlags({ flags }: { flags: PoisonFlagView[] }) {
  if (flags.length === 0) return null;
  return (
    <div className="callout callout-warning poison-flags" role="note" aria-label="Possible tool poisoning">
      <div className="callout-body">
        <span className="callout-title">Possible tool poisoning</span>
        <span className="callout-text">
          The tool’s definition has text that looks aimed at the model, not at you. It is not blocked; read it before
          you allow the tool.
        </span>
        <ul className="poison-flag-list">
          {flags.map((f, i) => (
            <li key={i} data-kind={f.kind}>
              <strong>{KIND_WORDS[f.kind]}</strong>
              {f.otherServer && (
                <>
                  {' '}
                  (of <code>{f.otherServer}</code>)
                </>
              )}{' '}
              <span className="muted">in {f.field}:</span> <q className="poison-passage">{f.passage}</q>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

/** The short marker on a tool in the list. */
export function FlaggedChip({ count }: { count: number }) {
  return (
    <span className="chip chip-warning" title={`${count} possible poisoning ${count === 1 ? 'flag' : 'flags'}`}>
      flagged
    </span>
  );
}
