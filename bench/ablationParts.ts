/**
 * The parts of a call's record the ablation host (bench/ablationHost.ts) can run without, as the benches name them
 * (`bench:gateway --ablation`, `bench:gateway-cpu` `BENCH_THIS_ABLATE`) and the host reads them
 * (`MINIHARNESS_BENCH_ABLATE`). Kept apart from the host, whose import starts it.
 */
const ABLATION_PARTS = ['traces', 'checkpoints', 'checkpoints-in-memory-sqlite'] as const;
export type AblationPart = (typeof ABLATION_PARTS)[number];

/** The parts a comma-separated list names; a clear error for a name it does not know, or for two ways of taking the checkpoints away. */
export function parseAblation(text: string | undefined, what: string): AblationPart[] {
  const parts = (text ?? '').split(',').filter(Boolean);
  for (const part of parts)
    if (!(ABLATION_PARTS as readonly string[]).includes(part))
      throw new Error(`${what}: unknown part "${part}" (known: ${ABLATION_PARTS.join(', ')})`);
  if (parts.includes('checkpoints') && parts.includes('checkpoints-in-memory-sqlite'))
    throw new Error(
      `${what}: "checkpoints" and "checkpoints-in-memory-sqlite" are two ways of taking the same part away; name one`,
    );
  return parts as AblationPart[];
}

/** Whether the checkpoints are away from the app's database (in a Map, or on an in-memory database of their own). */
export function withoutCheckpoints(parts: readonly AblationPart[]): boolean {
  return parts.includes('checkpoints') || parts.includes('checkpoints-in-memory-sqlite');
}
