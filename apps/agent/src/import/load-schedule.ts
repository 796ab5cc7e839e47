/**
 * A tool's load over time, from its own samples (k6's `vus` once a second, Gatling's users): the
 * level in effect at any moment, kept as the moments it changed — small even for a day-long test.
 * A request belongs to the level in effect when it was sent (its completion time minus its
 * latency), so a request still in flight when the load changed counts for the load it was sent at.
 */
export class LoadSchedule {
  private changes: Array<{ at: number; level: number }> = [];
  private lastLevel = Number.NaN;
  private lastSampleAt = Number.NaN;
  private sorted = true;

  /**
   * Samples of no load (k6 reports vus 0 before it starts and after it ends) mark no step. A change
   * seen between two samples happened somewhere between them: it is placed halfway, which halves
   * the worst misplacement (k6 samples once a second, so a step's edge is known to ±0.5 s).
   */
  add(sampledAt: number, level: number): void {
    const previousSample = this.lastSampleAt;
    this.lastSampleAt = sampledAt;
    if (!(level > 0) || level === this.lastLevel) return;
    const at = previousSample < sampledAt && this.changes.length > 0 ? (previousSample + sampledAt) / 2 : sampledAt;
    const prev = this.changes[this.changes.length - 1];
    if (prev !== undefined && at < prev.at) this.sorted = false;
    this.changes.push({ at, level });
    this.lastLevel = level;
  }

  get isEmpty(): boolean {
    return this.changes.length === 0;
  }

  /** The distinct levels in the order they first appear. */
  levels(): number[] {
    return [...new Set(this.ordered().map((c) => c.level))];
  }

  /** When `level` was first reached: the start of its step. */
  firstAt(level: number): number | undefined {
    return this.ordered().find((c) => c.level === level)?.at;
  }

  /** The level in effect at `t`; before the first sample, the first level. */
  at(t: number): number {
    const c = this.ordered();
    let lo = 0;
    let hi = c.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (c[mid]!.at <= t) lo = mid;
      else hi = mid - 1;
    }
    return c[lo]!.level;
  }

  private ordered(): Array<{ at: number; level: number }> {
    if (!this.sorted) {
      this.changes.sort((a, b) => a.at - b.at);
      // Out-of-order samples may leave repeats next to each other: they are no change.
      this.changes = this.changes.filter((c, i, all) => i === 0 || all[i - 1]!.level !== c.level);
      this.sorted = true;
    }
    return this.changes;
  }
}
