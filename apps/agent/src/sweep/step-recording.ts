import type { Recorder } from '@kneeboard/agent-sdk';
import { frameErrorKind } from '../load/error-kind.ts';
import { LevelStats } from '../load/level-stats.ts';
import { NameStats } from '../load/name-stats.ts';
import { RowSlab } from './row-slab.ts';
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
  /** The native engine's blocks: where their upload columns are written (made at the first block). */
  private slab: RowSlab | undefined;

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
  // are (no object per request) when it takes blocks. The columns computed here are written into
  // the step's RowSlab, so a frame allocates nothing but views.
  private onColumns(c: StepColumns): void {
    const { recorder, level, stats, byName } = this;
    const requestIndex = byName === undefined ? undefined : c.request;
    const n = c.length;
    const { ended, intended, compute, queue, status, kind, kinds, unparseable, cancelled } = c;
    const startedAt = this.startedAt;
    const columns = recorder.recordColumns !== undefined;
    const slab = columns ? (this.slab ??= new RowSlab(level, requestIndex !== undefined)) : undefined;
    const at = slab === undefined ? 0 : slab.reserve(n);
    const ts = slab?.ts;
    const latency = slab?.latency;
    const nameIndex = slab?.nameIndex;
    // `--requests`: each kept event's name, as an index into the mix's names (the batch's name column).
    const nameOf = this.mixNames?.nameOf;
    const names = this.mixNames?.names;
    let m = 0;
    let ok = 0;
    for (let i = 0; i < n; i++) {
      const k = kind[i]!;
      if (k === cancelled) continue;
      const s = status[i]!;
      const tsMs = micros(startedAt + ended[i]!);
      const latencyMs = ended[i]! - intended[i]!;
      const errorKind = frameErrorKind(k, kinds, s);
      stats.addValues(tsMs, latencyMs, errorKind, compute[i]!, queue[i]!, unparseable[i]!);
      if (requestIndex !== undefined) byName!.add(requestIndex[i]!, tsMs, latencyMs, errorKind !== null, compute[i]!);
      if (errorKind === null) ok += 1;
      if (!columns) {
        const cm = compute[i]!;
        const qm = queue[i]!;
        const name = requestIndex === undefined ? undefined : names![nameOf![requestIndex[i]!]!];
        recorder.record({ level, latencyMs: micros(latencyMs), computeMs: cm === cm ? cm : null, queueMs: qm === qm ? qm : null, status: s, tsMs, name });
        continue;
      }
      const row = at + m;
      if (requestIndex !== undefined) nameIndex![row] = nameOf![requestIndex[i]!]!;
      ts![row] = tsMs;
      latency![row] = micros(latencyMs);
      m++;
    }
    this.okSinceTick += ok;
    if (slab === undefined || m === 0) return;
    const rows = slab.take(at, m);
    // Cancelled requests are not events: when the block has any, the frame's own columns are compacted.
    const pick = <T extends Float64Array | Uint16Array>(col: T): T => (m === n ? col : (col.filter((_, i) => kind[i] !== cancelled) as T));
    recorder.recordColumns!({
      length: m,
      level: rows.level,
      ts_ms: rows.ts,
      latency_ms: rows.latency,
      compute_ms: pick(compute),
      queue_ms: pick(queue),
      status: pick(status),
      ...(rows.nameIndex === undefined ? {} : { name: { values: names!, index: rows.nameIndex } }),
    });
  }
}
