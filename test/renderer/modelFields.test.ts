/**
 * Settings → Models' checks, shared by the form and the contract (issue 34.2): a base URL's
 * problem as a sentence for its field, with the URL probably meant when the scheme is missing
 * (Ollama's usual typo), and a name's length.
 */
import { describe, expect, it } from 'vitest';
import { SaveModelRequestSchema, baseUrlProblem, modelNameProblem } from '../../shared/contract/runs.js';
import { modelIdOf, modelReplacedBy } from '../../renderer/src/ui/settings/ModelsCard.js';

describe('baseUrlProblem', () => {
  it.each([
    ['127.0.0.1:11434/v1', 'openai', 'must start with http:// or https:// — did you mean http://127.0.0.1:11434/v1?'],
    ['localhost:11434', 'openai', 'must start with http:// or https:// — did you mean http://localhost:11434/v1?'],
    ['localhost:8080', 'anthropic', 'must start with http:// or https:// — did you mean http://localhost:8080?'],
    ['api.example.com/v1', 'openai', 'must start with http:// or https:// — did you mean https://api.example.com/v1?'],
    ['ftp://127.0.0.1/v1', 'openai', 'must start with http:// or https:// (not ftp://)'],
    ['http://local host/v1', 'openai', 'must not contain spaces'],
    [`http://h/${'a'.repeat(2000)}`, 'openai', 'must be at most 2000 characters (this one has 2009)'],
  ] as const)('%s (%s)', (value, kind, words) => {
    expect(baseUrlProblem(value, kind)).toBe(words);
  });

  it('accepts empty (the provider’s API) and http(s) URLs', () => {
    expect(baseUrlProblem('')).toBeUndefined();
    expect(baseUrlProblem('  http://127.0.0.1:11434/v1  ')).toBeUndefined();
    expect(baseUrlProblem('https://api.openai.com/v1')).toBeUndefined();
  });

  it('the contract refuses with the same words at baseUrl, and a 300-character name at name', () => {
    const parsed = SaveModelRequestSchema.safeParse({
      id: 'x',
      name: 'n'.repeat(300),
      kind: 'openai',
      baseUrl: 'localhost:11434',
      model: 'm',
    });
    expect(parsed.success).toBe(false);
    const issues = parsed.error?.issues.map((i) => [i.path.join('.'), i.message]);
    expect(issues).toEqual([
      ['name', 'must be at most 100 characters (this one has 300)'],
      ['baseUrl', 'must start with http:// or https:// — did you mean http://localhost:11434/v1?'],
    ]);
  });
});

describe('the model a save would replace', () => {
  const saved = [{ id: 'scripted', name: 'Scripted', kind: 'openai', model: 'a', key: 'not_set' }] as const;
  it('the same id or the same name in other case; none for a new name', () => {
    expect(modelIdOf(' My Model! ')).toBe('my-model');
    expect(modelNameProblem('n'.repeat(101))).toBe('must be at most 100 characters (this one has 101)');
    expect(modelReplacedBy([...saved], 'Scripted')?.id).toBe('scripted');
    expect(modelReplacedBy([...saved], 'scripted')?.id).toBe('scripted');
    expect(modelReplacedBy([...saved], 'Other')).toBeUndefined();
  });
});
