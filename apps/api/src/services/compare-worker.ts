import { parentPort } from 'node:worker_threads';
import { compareGroups } from '@kneeboard/analysis/compare';
import type { CompareJob, CompareReply } from './compare-pool.ts';

/**
 * The bootstrap of one head against the base, off the API's event loop: seconds of CPU for big
 * runs, during which the main thread keeps answering every other request.
 */
parentPort?.on('message', (job: CompareJob) => {
  let reply: CompareReply;
  try {
    reply = { id: job.id, result: compareGroups(job.base, job.head, job.options) };
  } catch (err) {
    reply = { id: job.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort?.postMessage(reply);
});
