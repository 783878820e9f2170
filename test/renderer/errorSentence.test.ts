/**
 * A form field's error as the person reads it: a whole sentence that names the field, built
 * from main's fragments ("is required", the validator's "String does not match …", "0 is less
 * than 1.").
 */
import { describe, expect, it } from 'vitest';
import { errorSentence } from '../../renderer/src/ui/components/argsForm/theme.js';

describe('errorSentence', () => {
  it('names the field and ends the sentence', () => {
    expect(errorSentence('Email', 'is required')).toBe('Email is required.');
    expect(errorSentence('Email', 'String does not match format "email".')).toBe(
      'Email does not match format "email".',
    );
    expect(errorSentence('count', 'Value must be integer (it is string)')).toBe(
      'Count must be integer (it is string).',
    );
    expect(errorSentence('Count', '0 is less than 1.')).toBe('Count: 0 is less than 1.');
    expect(errorSentence('extra', 'is not a field of this form')).toBe('Extra is not a field of this form.');
  });
});
