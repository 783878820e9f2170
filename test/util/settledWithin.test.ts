import { expect, it } from 'vitest';
import { settledWithin } from '../../electron/util/settledWithin.js';

it('says whether the work settled within the bound; a failure counts as settled and is not rethrown', async () => {
  expect(await settledWithin(Promise.resolve(1), 1000)).toBe(true);
  expect(await settledWithin(Promise.reject(new Error('no')), 1000)).toBe(true);
  expect(await settledWithin(undefined, 0)).toBe(true);
  expect(await settledWithin(new Promise(() => undefined), 10)).toBe(false);
});
