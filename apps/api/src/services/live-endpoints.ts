import { cacheOf, type Db } from '@kneeboard/clickhouse';
import type { EndpointAnalysis, RunDetail } from '@kneeboard/contracts';
import { endpointAnalysis } from './endpoint-analysis.ts';

interface Kept {
  /** What the analysis was made from (names and their counts, the run's curve and steps): new inputs, new analysis. */
  inputs: string;
  /** Null when the read failed (the snapshot goes out without it). */
  analysis: Promise<EndpointAnalysis | null>;
}

/**
 * A live snapshot with the endpoints' analysis as it stands — which endpoint gives out first so
 * far, which dominates p99 — the one `GET /runs/{id}` answers (endpointAnalysis: the busiest names'
 * curve in one grouped read). It is made from snapshots read from storage, which carry the run's
 * names and their request counts, and only when what it rests on moved: once per run per change, kept
 * per run so every viewer of it shares the one read (the promise is kept, so viewers handed the same
 * snapshot together wait on one read). A snapshot from the store's figures in memory carries no
 * names: it gets the last analysis of the run, so the field does not flicker between reads. A run
 * without names is left as it is.
 */
export async function withLiveEndpoints(db: Db, detail: RunDetail, onError: (err: unknown) => void): Promise<RunDetail> {
  const cache = cacheOf<Kept>(db, 'live-endpoints', 256);
  const runId = detail.run.id;
  const names = detail.names ?? [];
  let kept = cache.get(runId, 'live');
  if (names.length > 0) {
    // What the analysis is made from: the names' counts, and the whole run's curve and steps (its knee, its windows).
    const inputs = JSON.stringify([names, detail.steps, detail.curve]);
    if (kept?.inputs !== inputs) {
      const entry: Kept = {
        inputs,
        analysis: endpointAnalysis(db, detail, 'auto').catch((err: unknown) => {
          // Not kept as the answer for these inputs: the next snapshot from storage reads again.
          entry.inputs = '';
          onError(err);
          return null;
        }),
      };
      cache.set(runId, 'live', (kept = entry));
    }
  }
  const analysis = kept ? await kept.analysis : null;
  return analysis ? { ...detail, endpoints: analysis } : detail;
}
