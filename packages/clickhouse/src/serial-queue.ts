/** Where writes that carry session settings go through. */
export interface WriteGate {
  run<T>(job: () => Promise<T>): Promise<T>;
}

/**
 * Runs async jobs one at a time, in order: the embedded engine's gate.
 *
 * Why: through chDB's connection hook a call's `clickhouse_settings` become session-wide `SET`s.
 * Small writes that pass settings that way (runs, steps, links, the batch ledger) go through this
 * queue so none can run between another's `SET` and its statement. Event batches do not need it:
 * they carry their settings in the statement's own SETTINGS clause.
 */
export class SerialQueue implements WriteGate {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(job, job);
    // The chain continues whether this job succeeds or not; callers see their own outcome.
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** A ClickHouse server keeps settings per request: writes need no gate and run concurrently. */
export const NO_GATE: WriteGate = { run: (job) => job() };
