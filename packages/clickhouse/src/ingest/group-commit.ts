/**
 * Collects items from concurrent callers and writes them in as few calls as possible: while one
 * write is in flight, new items wait; when it ends, everything that waited goes in the next one.
 * Each caller's promise settles with the write that carried its item, so "acknowledged" still
 * means "written". Idle, an item is written at once (no timer, no added latency).
 */
export class GroupCommit<T> {
  #pending: Array<{ item: T; resolve: () => void; reject: (err: unknown) => void }> = [];
  #writing: Promise<void> | undefined;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      this.#writing ??= this.#drain();
    });
  }

  /** Resolves once everything added so far has been written (or has failed). */
  async settled(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async #drain(): Promise<void> {
    // Let the callers of this tick join the first write.
    await Promise.resolve();
    while (this.#pending.length > 0) {
      const group = this.#pending;
      this.#pending = [];
      try {
        await this.write(group.map((p) => p.item));
        for (const p of group) p.resolve();
      } catch (err) {
        for (const p of group) p.reject(err);
      }
    }
    this.#writing = undefined;
  }
}
