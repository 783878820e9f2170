/** Collects a stream's output up to a byte cap, counting (but dropping) the rest. */

export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Every byte seen, including those past the cap. */
  total = 0;

  constructor(readonly capBytes: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.capBytes - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  text(): string {
    return Buffer.concat(this.chunks, this.kept).toString('utf8');
  }
}
