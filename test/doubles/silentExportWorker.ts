/**
 * An export worker that starts and then never answers (a worker stuck in an export or a
 * shutdown): it says it is ready, then takes every message without a reply. Run by Node itself
 * (type stripping): it imports nothing of ours.
 */
import { parentPort } from 'node:worker_threads';

if (parentPort) {
  parentPort.postMessage({ ready: true });
  parentPort.on('message', () => undefined);
}
