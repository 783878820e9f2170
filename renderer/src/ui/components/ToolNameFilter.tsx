/**
 * The "Tool" filter of the Traces and History toolbars: an exact tool name, applied a moment
 * after typing stops (or at once on Enter), with the names seen so far as suggestions.
 */
import { useEffect, useId, useRef, useState } from 'react';

const TYPING_DELAY_MS = 300;

export function ToolNameFilter({
  value,
  suggestions,
  onApply,
  className = 'filter',
}: {
  value: string;
  suggestions: string[];
  onApply: (toolName: string) => void;
  className?: string;
}) {
  const [text, setText] = useState(value);
  const [shown, setShown] = useState(value);
  const listId = useId();
  const apply = useRef(onApply);
  useEffect(() => {
    apply.current = onApply;
  });

  // The filter was changed from outside (e.g. "Clear filters"): show the new value.
  if (value !== shown) {
    setShown(value);
    setText(value);
  }

  // Debounce: apply what was typed once typing pauses; a newer keystroke or value cancels it.
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => apply.current(text.trim()), TYPING_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, value]);

  // The suggestions sit outside the label, so they do not become part of the input's name.
  return (
    <>
      <label className={className}>
        <span className="filter-label">Tool</span>
        <input
          className="input input-compact filter-input"
          type="search"
          list={listId}
          placeholder="Any tool"
          value={text}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && text.trim() !== value) onApply(text.trim());
          }}
        />
      </label>
      <datalist id={listId}>
        {suggestions.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
    </>
  );
}
