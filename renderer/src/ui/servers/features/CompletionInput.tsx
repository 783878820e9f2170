/**
 * A text field that asks the server for suggestions as the person types (MCP
 * `completion/complete`): a combobox per the WAI-ARIA pattern, with a listbox of the server's
 * values. Requests wait for a pause in typing; an answer for an older value is dropped; a failed
 * completion only means no suggestions — typing always works.
 */
import type { KeyboardEvent } from 'react';
import { useEffect, useId, useRef, useState } from 'react';
import type { CompletionView } from '../../../../../shared/contract.js';

/** How long typing must pause before the server is asked. */
const DEBOUNCE_MS = 180;

/** The server's suggestions, the active one marked; "more" when the server has others. */
function SuggestionList({
  listId,
  suggestions,
  active,
  onPick,
}: {
  listId: string;
  suggestions: CompletionView;
  active: number;
  onPick: (choice: string) => void;
}) {
  const more =
    suggestions.hasMore || (suggestions.total !== undefined && suggestions.total > suggestions.values.length);
  return (
    <ul className="completion-list" role="listbox" id={listId} aria-label="Suggestions">
      {suggestions.values.map((choice, index) => (
        <li
          key={choice}
          id={`${listId}-${index}`}
          role="option"
          aria-selected={index === active}
          className="completion-option"
          // Before the input's blur closes the list.
          onMouseDown={(event) => {
            event.preventDefault();
            onPick(choice);
          }}
        >
          {choice}
        </li>
      ))}
      {more && (
        <li className="completion-more" aria-hidden="true">
          {suggestions.total !== undefined
            ? `${suggestions.total - suggestions.values.length} more — keep typing`
            : 'More — keep typing'}
        </li>
      )}
    </ul>
  );
}

export function CompletionInput({
  id,
  value,
  onChange,
  complete,
  invalid,
  describedBy,
  required,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  /** Asks the server for suggestions; absent when it offers no completion. */
  complete?: (value: string) => Promise<CompletionView>;
  invalid?: boolean;
  describedBy?: string;
  required?: boolean;
}) {
  const listId = useId();
  const [suggestions, setSuggestions] = useState<CompletionView>({ values: [] });
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const sequence = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  function ask(text: string, delayMs: number): void {
    if (!complete) return;
    clearTimeout(timer.current);
    const mine = ++sequence.current;
    timer.current = setTimeout(() => {
      complete(text).then(
        (answer) => {
          if (mine !== sequence.current) return; // an answer for an older value
          setSuggestions(answer);
          setActive(-1);
          setOpen(answer.values.length > 0);
        },
        () => {
          if (mine === sequence.current) setOpen(false);
        },
      );
    }, delayMs);
  }

  function pick(choice: string): void {
    onChange(choice);
    setOpen(false);
    setActive(-1);
    sequence.current++; // a request still in flight must not reopen the list
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>): void {
    const count = suggestions.values.length;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (!open) {
        if (count > 0) setOpen(true);
        else ask(value, 0);
        event.preventDefault();
        return;
      }
      event.preventDefault();
      setActive((current) => (event.key === 'ArrowDown' ? (current + 1) % count : (current - 1 + count) % count));
    } else if (event.key === 'Enter' && open && active >= 0) {
      event.preventDefault();
      const choice = suggestions.values[active];
      if (choice !== undefined) pick(choice);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      setOpen(false);
    }
  }

  return (
    <div className="completion">
      <input
        id={id}
        className="input"
        value={value}
        autoComplete="off"
        spellCheck={false}
        required={required}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        {...(complete
          ? { role: 'combobox', 'aria-autocomplete': 'list' as const, 'aria-expanded': open, 'aria-controls': listId }
          : {})}
        {...(complete && open && active >= 0 ? { 'aria-activedescendant': `${listId}-${active}` } : {})}
        onChange={(event) => {
          onChange(event.target.value);
          ask(event.target.value, DEBOUNCE_MS);
        }}
        onFocus={() => ask(value, 0)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      {complete && open && <SuggestionList listId={listId} suggestions={suggestions} active={active} onPick={pick} />}
    </div>
  );
}
