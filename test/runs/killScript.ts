/** The model scripts of the kill -9 tests. The fixed-points one: two write calls, then a final answer. */
import type { ScriptedTurn } from '../doubles/providers/loopbackProvider.js';

export const KILL_PROMPT = 'append one, then two';

export const KILL_TURNS: ScriptedTurn[] = [
  { kind: 'reply', text: ['Step ', 'one.'], toolCalls: [{ id: 'toolu_k1', name: 'append', args: { line: 'one' } }] },
  {
    kind: 'reply',
    text: ['Step ', 'two.'],
    toolCalls: [{ id: 'toolu_k2', name: 'slow_append', args: { line: 'two', ms: 300 } }],
  },
  { kind: 'reply', text: ['All ', 'done.'] },
];

/** What the tool answers for a call, as the person who resolves it by hand records it. */
export function expectedResultText(args: Record<string, unknown>): string {
  return `appended ${String(args.line)}`;
}

/**
 * The random kill -9 test's script: one call, then two calls in one turn (a slow one, then a
 * fast one), then a final answer. Keyed by the tool results the conversation holds.
 */
export const RANDOM_KILL_TURNS: ReadonlyMap<number, ScriptedTurn> = new Map<number, ScriptedTurn>([
  [
    0,
    { kind: 'reply', text: ['Step ', 'one.'], toolCalls: [{ id: 'toolu_r1', name: 'append', args: { line: 'one' } }] },
  ],
  [
    1,
    {
      kind: 'reply',
      text: ['Steps ', 'two ', 'and three.'],
      toolCalls: [
        { id: 'toolu_r2', name: 'slow_append', args: { line: 'two', ms: 200 } },
        { id: 'toolu_r3', name: 'append', args: { line: 'three' } },
      ],
    },
  ],
  [3, { kind: 'reply', text: ['All ', 'done.'] }],
]);
/** The side effects of the whole script, in order. */
export const RANDOM_KILL_LINES = ['one', 'two', 'three'];
