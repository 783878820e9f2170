/** An indeterminate progress mark; the label is for screen readers. */
export function Spinner({ label = 'Loading' }: { label?: string }) {
  return <span className="spinner" role="progressbar" aria-label={label} />;
}
