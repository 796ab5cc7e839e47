import type { Db } from '@kneeboard/clickhouse';
import type { Capacity, RunDetail, SloClause } from '@kneeboard/contracts';
import { withLiveEndpoints } from './live-endpoints.ts';
import { runCapacity } from './run-capacity.ts';
import { withSearch } from './run-search.ts';

export type LiveSnapshot = RunDetail & { capacity?: Capacity };

/**
 * A live viewer who asked for SLOs (`slos` not null) gets each snapshot with its capacity; a
 * `--search` run's snapshots carry the search as it stands (withSearch) to every viewer, and a run
 * with request names its endpoints' analysis as it stands (withLiveEndpoints). Capacity reads the run's
 * samples (one query), so it is computed per delivered snapshot, one at a time: snapshots that
 * arrive meanwhile collapse to the newest, and the order of `snapshot` then `end` is kept. When
 * capacity cannot be computed the snapshot still goes out, without it.
 */
export function capacitySender(db: Db, slos: readonly SloClause[] | null, write: (snapshot: LiveSnapshot) => void, onError: (err: unknown) => void): (detail: RunDetail) => void {
  let next: RunDetail | null = null;
  let busy = false;
  const drain = async () => {
    busy = true;
    while (next !== null) {
      let detail = next;
      next = null;
      let capacity: Capacity | undefined;
      try {
        detail = await withLiveEndpoints(db, detail, onError);
        detail = await withSearch(db, detail);
        if (slos) capacity = await runCapacity(db, detail, slos);
      } catch (err) {
        onError(err);
      }
      write(capacity ? { ...detail, capacity } : detail);
    }
    busy = false;
  };
  return (detail) => {
    next = detail;
    if (!busy) void drain();
  };
}
