/** Counts in words: "1 item", "2 items" — the plural category from Intl.PluralRules, not `n === 1`. */
const rules = new Intl.PluralRules('en-US');
const numbers = new Intl.NumberFormat('en-US');

/** `one` or `other` by the count's plural category (English UI text has only these two). */
export function pluralWord(n: number, one: string, other: string): string {
  return rules.select(n) === 'one' ? one : other;
}

/** "1 tool", "3 tools", "1,200 calls". */
export function countOf(n: number, one: string, other: string): string {
  return `${numbers.format(n)} ${pluralWord(n, one, other)}`;
}
