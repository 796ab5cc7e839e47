import type { Db } from '@kneeboard/clickhouse';
import type { RunDetail } from '@kneeboard/contracts';
import { notFound } from '../errors.ts';
import { loadRunDetail } from './run-detail.ts';

/**
 * Named reads made for one whole-run snapshot, by name. The hub hands every viewer of a run the same
 * snapshot object, so viewers of one name share one read per change; the entry goes with the snapshot.
 */
const reads = new WeakMap<RunDetail, Map<string, Promise<RunDetail>>>();

/**
 * A live viewer of one request name (`GET /runs/{id}/live?name=`): for each snapshot of the whole run,
 * that name's detail as `GET /runs/{id}?name=` answers it — read from storage (the store's figures in
 * memory are the whole run's), with the run's endpoints as the whole-run snapshot has them (`endpoints`,
 * the analysis as it stands). `trigger` is the snapshot the hub delivered (the key viewers share);
 * `total` the same with its endpoints added. A read that fails is not kept: the next snapshot reads again.
 */
export function namedSnapshot(db: Db, trigger: RunDetail, total: RunDetail, name: string): Promise<RunDetail> {
  let byName = reads.get(trigger);
  if (!byName) reads.set(trigger, (byName = new Map()));
  let read = byName.get(name);
  if (!read) {
    const kept = byName;
    read = loadRunDetail(db, total.run.id, 'auto', { name }).then((named) => {
      // The run was deleted meanwhile.
      if (!named) throw notFound('run');
      return named;
    });
    read.catch(() => kept.delete(name));
    kept.set(name, read);
  }
  return read.then((named) => (total.endpoints ? { ...named, endpoints: total.endpoints } : named));
}
