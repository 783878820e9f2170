/**
 * Micro-benchmark of the stdio line reader (electron/mcp/stdioTransport.ts `BoundedLineReader`),
 * which splits every message a stdio server writes (issue 33): a line wholly inside one chunk —
 * the usual case — decoded in place, against the way before (its bytes copied into a new Buffer,
 * decoded, and a trailing CR stripped by a regular expression). In one process, interleaved
 * rounds, median ns per line, for chunks of 1 line (sequential calls) and of 64 lines (a burst).
 *
 *   npx tsx bench/lineReader.ts      (BENCH_LINES, default 500000; BENCH_ROUNDS, default 5)
 */
import { BoundedLineReader } from '../electron/mcp/stdioTransport.js';
import { fmt, median, printTable } from './pipelineHelpers.js';

const LINES = Number(process.env.BENCH_LINES ?? 500_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LF = 0x0a;

/** The reader as it was before: every line through Buffer.concat and a regular expression. */
class ConcatLineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    while (start < chunk.length) {
      const lf = chunk.indexOf(LF, start);
      const end = lf === -1 ? chunk.length : lf;
      this.pending.push(chunk.subarray(start, end));
      this.pendingBytes += end - start;
      if (lf === -1) break;
      lines.push(Buffer.concat(this.pending, this.pendingBytes).toString('utf8').replace(/\r$/, ''));
      this.pending = [];
      this.pendingBytes = 0;
      start = lf + 1;
    }
    return lines;
  }
}

const line = JSON.stringify({
  result: { content: [{ type: 'text', text: 'Echo: hello #12345' }] },
  jsonrpc: '2.0',
  id: 12345,
});

function nsPerLine(reader: { push(chunk: Buffer): string[] }, perChunk: number): number {
  const chunk = Buffer.from(`${line}\n`.repeat(perChunk));
  const chunks = Math.ceil(LINES / perChunk);
  let count = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < chunks; i++) count += reader.push(chunk).length;
  const ns = Number(process.hrtime.bigint() - started);
  if (count !== chunks * perChunk) throw new Error('lines lost');
  return ns / count;
}

const rows = [['chunk', 'before (concat + regex) ns/line', 'after (in place) ns/line']];
for (const perChunk of [1, 64]) {
  const before: number[] = [];
  const after: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    before.push(nsPerLine(new ConcatLineReader(), perChunk));
    after.push(nsPerLine(new BoundedLineReader(1 << 24, () => new Error('too large')), perChunk));
  }
  rows.push([`${perChunk} line(s) of ${line.length + 1} bytes`, fmt(median(before), 0), fmt(median(after), 0)]);
}
printTable(rows);
