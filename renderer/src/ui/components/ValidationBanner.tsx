/**
 * The one banner a dialog shows when what was entered (or what came back) cannot be used: a
 * title that says what happened, an optional sentence, and the individual problems as a list.
 * Every dialog uses it, so they look and read alike (and tests find them the same way).
 */
import type { ReactNode } from 'react';
import { Callout } from './Callout.js';

export function ValidationBanner({
  title,
  message,
  problems = [],
}: {
  title: string;
  message?: ReactNode;
  problems?: readonly string[];
}) {
  return (
    <div className="validation-banner" data-validation-banner="">
      <Callout tone="error" title={title} role="alert">
        {message !== undefined && message !== '' && <p>{message}</p>}
        {problems.length > 0 && (
          <ul className="plain-list validation-problems">
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        )}
      </Callout>
    </div>
  );
}
