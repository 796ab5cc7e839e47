import { createHash } from 'node:crypto';
import type { KneeboardApi } from '@kneeboard/agent-sdk';
import type { ImportConfig } from './import-options.ts';

/** The run tag that names an import: the same files, tool and options give the same key. */
export const IMPORT_KEY_TAG = 'kneeboard_import';

/**
 * The import's identity: the files' SHA-256s with everything that changes what is stored (the tool
 * and its variant, the levels, the warm-up). Batch ids derive from it, so a repeated import sends
 * batches the API already has, and it tags the run, so a repeat finds its run instead of making a
 * second one.
 */
export function importKey(tool: string, cfg: ImportConfig, fileHashes: string[]): string {
  const identity = JSON.stringify({ v: 1, tool, levels: cfg.levels ?? null, warmupMs: cfg.warmupMs, files: fileHashes });
  return createHash('sha256').update(identity).digest('hex');
}

export type RunChoice =
  | { kind: 'given'; runId: string }
  | { kind: 'new' }
  /** An earlier import of the same files that did not finish: the batches are sent again, stored once. */
  | { kind: 'resume'; runId: string }
  /** An earlier import of the same files finished: nothing to send. */
  | { kind: 'done'; runId: string };

/**
 * The API has no idempotent run creation, so the import looks for its own tag among the service's
 * runs of that release. (Two imports of the same files started at the same moment could still make
 * two runs; `--run ID` is the way to be exact.)
 */
export async function chooseRun(api: KneeboardApi, cfg: ImportConfig, key: string): Promise<RunChoice> {
  if (cfg.runId !== undefined) return { kind: 'given', runId: cfg.runId };
  const run = cfg.run!;
  const runs = await api.listRuns({ service: run.service, release: run.release, limit: 500 });
  const earlier = runs.filter((r) => r.tags[IMPORT_KEY_TAG] === key);
  const finished = earlier.find((r) => r.status === 'finished');
  if (finished) return { kind: 'done', runId: finished.id };
  const running = earlier.find((r) => r.status === 'running');
  // An aborted one is closed for writes after the API's grace period: a fresh run is the safe choice.
  return running ? { kind: 'resume', runId: running.id } : { kind: 'new' };
}
