import type { Db } from '@kneeboard/clickhouse';
import type { Capacity, RunDetail, SloClause } from '@kneeboard/contracts';
import { withLiveEndpoints } from './live-endpoints.ts';
import { namedSnapshot } from './live-name.ts';
import { runCapacity } from './run-capacity.ts';
import { withSearch } from './run-search.ts';

export type LiveSnapshot = RunDetail & { capacity?: Capacity };

/**
 * A live viewer who asked for SLOs (`slos` not null) gets each snapshot with its capacity; a
 * `--search` run's snapshots carry the search as it stands (withSearch) to every viewer, and a run
 * with request names its endpoints' analysis as it stands (withLiveEndpoints). Capacity reads the run's
 * samples (one query), so it is computed per delivered snapshot, one at a time: snapshots that
 * arrive meanwhile collapse to the newest, and the order of `snapshot` then `end` is kept. When
 * capacity cannot be computed the snapshot still goes out, without it. With `name` (`?name=`) each
 * snapshot is that request name's detail (namedSnapshot), made from the whole run's as it arrives; when
 * that read fails on the run's last snapshot, the viewer is still told the run ended (`end`, whose
 * client then reads the final state itself) rather than left waiting on a stream nothing will follow.
 */
export interface LiveSenderOptions {
  slos: readonly SloClause[] | null;
  /** The request name the viewer follows, or null for the whole run. */
  name: string | null;
  write: (snapshot: LiveSnapshot) => void;
  /** The run ended but no snapshot of it could be made for this viewer. */
  end: (status: RunDetail['run']['status']) => void;
  onError: (err: unknown) => void;
}

export function capacitySender(db: Db, { slos, name, write, end, onError }: LiveSenderOptions): (detail: RunDetail) => void {
  let next: RunDetail | null = null;
  let busy = false;
  const drain = async () => {
    busy = true;
    while (next !== null) {
      const trigger = next;
      next = null;
      // A viewer of one name is never shown the whole run's curve: no named read, no snapshot.
      let shown: RunDetail | null = name === null ? trigger : null;
      let capacity: Capacity | undefined;
      try {
        const total = await withLiveEndpoints(db, trigger, onError);
        shown = name === null ? total : await namedSnapshot(db, trigger, total, name);
        shown = await withSearch(db, shown);
        // Capacity is the whole run's (as GET /runs/{id}/analysis?slo= answers it), whichever curve is shown.
        if (slos) capacity = await runCapacity(db, total, slos);
      } catch (err) {
        onError(err);
      }
      if (shown) write(capacity ? { ...shown, capacity } : shown);
      else if (trigger.run.status !== 'running') end(trigger.run.status);
    }
    busy = false;
  };
  return (detail) => {
    next = detail;
    if (!busy) void drain();
  };
}
