import type { Db } from '../db.ts';
import { reconcileLedger } from '../ingest/batch-ledger.ts';
import { repairRollup, runsWithSuspectRollup } from '../ingest/rollup-repair.ts';
import type { Recovered } from './event-store.ts';

/**
 * Puts right what a process killed mid-insert left behind, on the embedded engine (one writer,
 * one group in flight, the ledger written before the events, the rollup view's rows after the
 * raw part): a group whose ledger rows name events that are not there (reconcileLedger), and a
 * rollup short of (or beyond) the raw rows of the seconds that insert touched (repairRollup).
 *
 * Once per run per process, before this process's first write to it: later, a group of its own
 * may be between its two writes and would look like a crash's. At start-up, `sweep` does it for
 * every run whose rollup total differs from its ledger — runs nobody writes to again are put right
 * too, so the default view (rollup) and `?exact=1` (raw rows) agree after any crash.
 *
 * The embedded store's alone: on a server none of this applies: an insert is one query there, which the server finishes or
 * cancels whatever becomes of the API process, and a batch that was not acknowledged is sent again
 * under the same token — the raw table drops the copy, and the view's block, deduplicated on its
 * own (`deduplicate_blocks_in_dependent_materialized_views`), is written if it was missing.
 */
export class CrashRecovery {
  readonly #runs = new Map<string, Promise<Recovered>>();

  constructor(private readonly db: Db) {}

  /** Recovers the run once per process (a failed attempt is tried again on the next call). */
  run(runId: string): Promise<Recovered> {
    let recovering = this.#runs.get(runId);
    if (recovering === undefined) {
      recovering = this.#recover(runId);
      this.#runs.set(runId, recovering);
      recovering.catch(() => this.#runs.delete(runId));
    }
    return recovering;
  }

  /** Every run a crash may have left with a rollup that disagrees with its raw rows; the ones that needed work. */
  async sweep(): Promise<Recovered[]> {
    const done: Recovered[] = [];
    for (const runId of await runsWithSuspectRollup(this.db)) {
      const r = await this.run(runId);
      if (r.batchesForgotten > 0 || r.secondsRebuilt > 0) done.push(r);
    }
    return done;
  }

  /** Forgets a deleted run (its id never comes back; the entry would only take memory). */
  forget(runId: string): void {
    this.#runs.delete(runId);
  }

  async #recover(runId: string): Promise<Recovered> {
    // The ledger first: a group that never landed is not the rollup's concern (neither table has it).
    const forgotten = await reconcileLedger(this.db, runId);
    const secondsRebuilt = await repairRollup(this.db, runId);
    return { runId, batchesForgotten: forgotten.length, secondsRebuilt };
  }
}
