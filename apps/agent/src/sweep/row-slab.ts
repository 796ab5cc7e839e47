/**
 * The columns a step computes for its upload (completion time and latency, µs-rounded, the level,
 * the name index), written into arrays of SLAB_ROWS rows that are handed out as views: a native
 * frame's rows cost no allocation but the views. A slab is only ever appended to, so a view handed
 * to the recorder (which keeps blocks until it cuts a batch) is never overwritten; a full slab is
 * left to the views that still hold it and a new one is started.
 */
const SLAB_ROWS = 16_384;

export class RowSlab {
  private level!: Float64Array;
  ts!: Float64Array;
  latency!: Float64Array;
  nameIndex!: Uint16Array;
  /** The next free row; a frame writes rows [start, start + n) after reserve(n) returned start. */
  private at = 0;

  constructor(
    private readonly levelValue: number,
    private readonly named: boolean,
  ) {
    this.fresh(SLAB_ROWS);
  }

  /** Room for n more rows: the row to write the first of them at. */
  reserve(n: number): number {
    if (this.at + n > this.ts.length) this.fresh(Math.max(SLAB_ROWS, n));
    return this.at;
  }

  /** Rows [start, start + n), now written: their views, and the rows past them are free for the next frame. */
  take(start: number, n: number): { level: Float64Array; ts: Float64Array; latency: Float64Array; nameIndex: Uint16Array | undefined } {
    const end = start + n;
    this.at = end;
    return {
      level: this.level.subarray(start, end),
      ts: this.ts.subarray(start, end),
      latency: this.latency.subarray(start, end),
      nameIndex: this.named ? this.nameIndex.subarray(start, end) : undefined,
    };
  }

  private fresh(rows: number): void {
    // The level is the same for every row of a step: filled once per slab, not per frame.
    this.level = new Float64Array(rows).fill(this.levelValue);
    this.ts = new Float64Array(rows);
    this.latency = new Float64Array(rows);
    this.nameIndex = new Uint16Array(this.named ? rows : 0);
    this.at = 0;
  }
}
