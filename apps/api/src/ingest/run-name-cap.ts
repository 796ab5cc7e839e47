import { queryRunNames, type Db } from '@kneeboard/clickhouse';
import { DEFAULT_MAX_NAMES_PER_RUN } from '@kneeboard/contracts';
import { HttpError } from '../errors.ts';

/** Runs whose names are kept in memory; the least recently used beyond this are read again if they return. */
const MAX_RUNS = 1_000;

/**
 * The cap on distinct request names per run (KNEEBOARD_MAX_NAMES_PER_RUN): a name is a rollup key
 * and a curve, so a client that names requests by URL — ids in them — would add a rollup row per
 * id per second. A batch that would take its run past the cap is refused whole (400 naming
 * `name` and the cap), before anything of it is written.
 *
 * The names a run has are read once per run from the per-name rollup, then kept here with those
 * of every batch this process admits (reserved before the write, so two batches at once cannot
 * both slip past the cap). With several API replicas each knows the others' names as of its
 * first read: a run can end above the cap by what other replicas admitted since, never by more.
 */
export class RunNameCap {
  readonly #runs = new Map<string, Promise<Set<string>>>();

  constructor(
    private readonly db: Db,
    readonly max: number = DEFAULT_MAX_NAMES_PER_RUN,
  ) {}

  /** Admits the batch's distinct names for the run, or throws the 400. */
  async admit(runId: string, names: ReadonlySet<string>): Promise<void> {
    if (names.size === 0) return;
    const known = await this.#known(runId);
    // No await from here to the reservation: the check and the adding are one step.
    let added = 0;
    for (const n of names) if (!known.has(n)) added++;
    if (added === 0) return;
    if (known.size + added > this.max) {
      throw new HttpError(
        400,
        `this batch would give the run ${known.size + added} distinct request names, above the cap of ${this.max} per run (KNEEBOARD_MAX_NAMES_PER_RUN); name requests by endpoint, e.g. "GET /users/{id}", not by their URL`,
        'name',
      );
    }
    for (const n of names) known.add(n);
  }

  /** The run was deleted: its names are read again if it ever returns. */
  forget(runId: string): void {
    this.#runs.delete(runId);
  }

  #known(runId: string): Promise<Set<string>> {
    let entry = this.#runs.get(runId);
    if (entry === undefined) {
      entry = queryRunNames(this.db, runId).then((rows) => new Set(rows.map((r) => r.name)));
      // A failed read is not kept: the next batch reads again.
      entry.catch(() => this.#runs.get(runId) === entry && this.#runs.delete(runId));
    } else {
      this.#runs.delete(runId);
    }
    this.#runs.set(runId, entry);
    if (this.#runs.size > MAX_RUNS) this.#runs.delete(this.#runs.keys().next().value as string);
    return entry;
  }
}
