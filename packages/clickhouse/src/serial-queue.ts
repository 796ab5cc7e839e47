/**
 * Runs async jobs one at a time, in order.
 *
 * Why: through chDB's connection hook a call's settings (such as `insert_deduplication_token`)
 * become session-wide `SET`s, so two inserts interleaving on the one embedded session could each
 * run with the other's token. Writes are few and large, so serialising them costs nothing.
 */
export class SerialQueue {
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
