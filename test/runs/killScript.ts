/** The model script of the kill -9 test: two write calls, then a final answer. */
import type { ScriptedTurn } from '../models/loopbackProvider.js';

export const KILL_PROMPT = 'append one, then two';

export const KILL_TURNS: ScriptedTurn[] = [
  { kind: 'reply', text: ['Step ', 'one.'], toolCalls: [{ id: 'toolu_k1', name: 'append', args: { line: 'one' } }] },
  { kind: 'reply', text: ['Step ', 'two.'], toolCalls: [{ id: 'toolu_k2', name: 'slow_append', args: { line: 'two', ms: 300 } }] },
  { kind: 'reply', text: ['All ', 'done.'] },
];

/** What the tool answers for a call, as the person who resolves it by hand records it. */
export function expectedResultText(args: Record<string, unknown>): string {
  return `appended ${String(args.line)}`;
}
