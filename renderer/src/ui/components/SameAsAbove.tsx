/**
 * A sentence in a list row, or "Same as above." when the row above says the same words: the full
 * sentence stays in the tooltip and, visually hidden, for screen readers (they hear every row).
 */
export function SentenceOrSameAsAbove({ text, same, className }: { text: string; same: boolean; className: string }) {
  if (!same) return <span className={className}>{text}</span>;
  return (
    <span className={`${className} same-as-above`} title={text}>
      <span aria-hidden="true">Same as above.</span>
      <span className="visually-hidden">{text}</span>
    </span>
  );
}
