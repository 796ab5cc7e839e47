import { scheduleSampler, type ScheduleSampler } from './fingerprint.ts';
import { LoadSchedule } from './load-schedule.ts';

/** Requests held back at most, waiting for the sample that tells their level; beyond, the last known level is used. */
const MAX_PENDING = 200_000;

interface Held {
  tsMs: number;
  latencyMs: number;
  status: number;
  computeMs: number;
  queueMs: number;
  lineNumber: number;
}

/**
 * Levels for a stream read live, from the tool's schedule samples as they arrive. A request's level
 * is the load when it was *sent*, and a change between two samples is placed halfway (see
 * LoadSchedule): so a request sent after the newest sample waits — a second or so, k6 samples
 * `vus` every second — until a later sample covers its send time. Memory stays bounded by the
 * requests of that second.
 */
export class LiveLevels {
  readonly schedule = new LoadSchedule();
  private readonly sampler: ScheduleSampler;
  /** Send times up to this are covered by the samples seen. */
  private known = Number.NEGATIVE_INFINITY;
  private held: Held[] = [];

  constructor(
    private readonly bucketMs: number | undefined,
    private readonly release: (level: number, r: Held) => void,
  ) {
    this.sampler = scheduleSampler(this.schedule, bucketMs);
  }

  sample(at: number, level: number): void {
    this.sampler.add(at, level);
    // A bucketed schedule hands a bucket over only when the next one begins.
    this.known = Math.max(this.known, this.bucketMs === undefined ? at : Math.floor(at / this.bucketMs) * this.bucketMs - 1);
    if (!this.schedule.isEmpty) this.releaseUpTo(this.known);
  }

  request(r: Held): void {
    const sent = r.tsMs - r.latencyMs;
    if (sent <= this.known && !this.schedule.isEmpty) this.release(this.schedule.at(sent), r);
    else this.held.push(r);
    if (this.held.length > MAX_PENDING) this.releaseUpTo(Number.POSITIVE_INFINITY);
  }

  /** The stream ended: every held request gets the level in effect when it was sent (NaN if no sample came at all). */
  end(): void {
    this.sampler.flush();
    this.releaseUpTo(Number.POSITIVE_INFINITY);
  }

  private releaseUpTo(t: number): void {
    if (this.held.length === 0) return;
    const keep: Held[] = [];
    for (const r of this.held) {
      if (r.tsMs - r.latencyMs > t) keep.push(r);
      else this.release(this.schedule.isEmpty ? Number.NaN : this.schedule.at(r.tsMs - r.latencyMs), r);
    }
    this.held = keep;
  }
}
