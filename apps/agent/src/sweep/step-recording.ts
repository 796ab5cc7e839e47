import type { Recorder } from '@kneeboard/agent-sdk';
import { frameErrorKind } from '../load/error-kind.ts';
import { LevelStats } from '../load/level-stats.ts';
import { NameStats } from '../load/name-stats.ts';
import type { StepColumns, StepEvent, StepSink } from './step-driver.ts';

const micros = (ms: number): number => Math.round(ms * 1000) / 1000;

/**
 * One level's requests as they arrive, from either engine: each is recorded for upload and counted
 * locally for the table. Its times (epoch ms) are fixed by begin(), when the engine fixes the first send.
 */
export class StepRecording {
  startedAt = 0;
  measureFrom = 0;
  endsAt = 0;
  stats!: LevelStats;
  /** `--requests`: the level split by request name. */
  byName: NameStats | undefined;
  /** Successes since the progress line last read them. */
  private okSinceTick = 0;

  constructor(
    private readonly recorder: Recorder,
    private readonly level: number,
    private readonly warmupMs: number,
    private readonly durationMs: number,
    /** `--requests`: the mix's names, and each request's name index. */
    private readonly mixNames?: { names: readonly string[]; nameOf: Uint16Array },
  ) {}

  /** The engine fixed the first send time: the window is warm-up from it, then the measured duration. */
  begin(startedAt: number): StepSink {
    this.startedAt = startedAt;
    this.measureFrom = startedAt + this.warmupMs;
    this.endsAt = this.measureFrom + this.durationMs;
    this.stats = new LevelStats(this.level, this.measureFrom, this.endsAt);
    this.byName = this.mixNames && new NameStats(this.mixNames.names, this.mixNames.nameOf, this.measureFrom, this.endsAt);
    return Object.assign((e: StepEvent) => this.onEvent(e), { columns: (c: StepColumns) => this.onColumns(c) });
  }

  /** Successes since the last call (for the progress line's QPS). */
  takeOk(): number {
    const n = this.okSinceTick;
    this.okSinceTick = 0;
    return n;
  }

  private onEvent(e: StepEvent): void {
    const tsMs = micros(e.tsMs);
    const mix = this.mixNames;
    const name = mix && e.request !== undefined ? mix.names[mix.nameOf[e.request]!] : undefined;
    this.recorder.record({ level: this.level, latencyMs: micros(e.latencyMs), computeMs: e.computeMs, queueMs: e.queueMs, status: e.status, tsMs, name });
    this.stats.add(tsMs, e.latencyMs, e);
    if (this.byName !== undefined && e.request !== undefined) this.byName.add(e.request, tsMs, e.latencyMs, e.errorKind !== null, e.computeMs ?? Number.NaN);
    if (e.errorKind === null) this.okSinceTick += 1;
  }

  // A block from the native engine: one pass over its columns, which go to the recorder as they
  // are (no object per request) when it takes blocks.
  private onColumns(c: StepColumns): void {
    const { recorder, level, stats, byName } = this;
    const requestIndex = byName === undefined ? undefined : c.request;
    const n = c.length;
    const { ended, intended, compute, queue, status, kind, kinds, unparseable } = c;
    const ts = new Float64Array(n);
    const latency = new Float64Array(n);
    let m = 0;
    const keep = recorder.recordColumns === undefined ? null : new Uint8Array(n);
    // `--requests`: each kept event's name, as an index into the mix's names (the batch's name column).
    const nameOf = this.mixNames?.nameOf;
    const names = this.mixNames?.names;
    const nameIndex = requestIndex === undefined ? undefined : new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      const k = kind[i]!;
      if (k === c.cancelled) continue;
      const s = status[i]!;
      const tsMs = micros(this.startedAt + ended[i]!);
      const latencyMs = ended[i]! - intended[i]!;
      const errorKind = frameErrorKind(k, kinds, s);
      stats.addValues(tsMs, latencyMs, errorKind, compute[i]!, queue[i]!, unparseable[i]!);
      if (requestIndex !== undefined) byName!.add(requestIndex[i]!, tsMs, latencyMs, errorKind !== null, compute[i]!);
      if (errorKind === null) this.okSinceTick += 1;
      if (keep === null) {
        const cm = compute[i]!;
        const qm = queue[i]!;
        const name = requestIndex === undefined ? undefined : names![nameOf![requestIndex[i]!]!];
        recorder.record({ level, latencyMs: micros(latencyMs), computeMs: cm === cm ? cm : null, queueMs: qm === qm ? qm : null, status: s, tsMs, name });
        continue;
      }
      keep[i] = 1;
      if (nameIndex !== undefined) nameIndex[m] = nameOf![requestIndex![i]!]!;
      ts[m] = tsMs;
      latency[m] = micros(latencyMs);
      m++;
    }
    if (keep === null || m === 0) return;
    // Cancelled requests are not events: when the block has any, its columns are compacted.
    const pick = <T extends Float64Array | Uint16Array>(col: T): T => (m === n ? col : (col.filter((_, i) => keep[i] === 1) as T));
    recorder.recordColumns!({
      length: m,
      level: new Float64Array(m).fill(level),
      ts_ms: ts.subarray(0, m),
      latency_ms: latency.subarray(0, m),
      compute_ms: pick(compute),
      queue_ms: pick(queue),
      status: pick(status),
      ...(nameIndex === undefined ? {} : { name: { values: names!, index: nameIndex.subarray(0, m) } }),
    });
  }
}
