/** A refusal shown above a form: its title and sentences from describeError (nothing when there is none). */
import { Callout } from './Callout.js';
import type { ErrorDescription } from '../../lib/describeError.js';

export function ErrorCallout({ words }: { words: ErrorDescription | undefined }) {
  if (!words) return null;
  return (
    <Callout tone={words.tone} title={words.title}>
      {words.text}
    </Callout>
  );
}
