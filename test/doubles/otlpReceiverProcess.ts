/**
 * The loopback OTLP receiver (otlpReceiver.ts) in a process of its own, as a real collector is:
 * a benchmark then measures the app's export work without the receiver's decoding on its own
 * event loop. Prints `{"url": …}` on one line once listening; a GET on any path answers the counts
 * received so far. `--hang`: it never answers an export. Stops on SIGTERM or when stdin closes.
 */
import { OtlpReceiver } from './otlpReceiver.js';

const receiver = await OtlpReceiver.start({ counts: true });
if (process.argv.includes('--hang')) receiver.mode = 'hang';
console.log(JSON.stringify({ url: receiver.url }));
const stop = (): void => void receiver.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
