import type { EventColumns, EventNames } from '@kneeboard/event-wire';

interface Pending {
  level: number[];
  ts_ms: number[];
  latency_ms: number[];
  /** NaN for "no Server-Timing value", as in EventColumns. */
  compute_ms: number[];
  queue_ms: number[];
  status: number[];
  /** Each event's name ('' for none): a column only once some event has one. */
  name: string[];
  named: boolean;
}

const empty = (): Pending => ({ level: [], ts_ms: [], latency_ms: [], compute_ms: [], queue_ms: [], status: [], name: [], named: false });
const F64_COLUMNS = ['level', 'ts_ms', 'latency_ms', 'compute_ms', 'queue_ms'] as const;
type Building = { -readonly [K in keyof EventColumns]: EventColumns[K] };

/**
 * Request events in columns, in the order recorded. Single events are six pushes onto number
 * arrays (no object per request); a whole block of columns (a native engine's frame) is kept as
 * it is, so recording it costs nothing per event. A batch is cut as typed arrays (EventColumns),
 * ready to encode: one copy of each column.
 */
export class EventBuffer {
  private cols = empty();
  /** Sealed blocks, oldest first; `cols` holds the events recorded after the last of them. */
  private blocks: EventColumns[] = [];
  private blocked = 0;

  get length(): number {
    return this.blocked + this.cols.level.length;
  }

  append(level: number, tsMs: number, latencyMs: number, computeMs: number | null, queueMs: number | null, status: number, name = ''): void {
    const c = this.cols;
    c.name.push(name);
    if (name !== '') c.named = true;
    c.level.push(level);
    c.ts_ms.push(tsMs);
    c.latency_ms.push(latencyMs);
    c.compute_ms.push(computeMs === null ? Number.NaN : Math.min(computeMs, latencyMs));
    c.queue_ms.push(queueMs === null ? Number.NaN : Math.min(queueMs, latencyMs));
    c.status.push(status);
  }

  /** Appends a block as it is (the caller hands it over and must not change it afterwards), its server times clamped as in append. */
  appendColumns(block: EventColumns): void {
    if (block.length === 0) return;
    clampServerTimes(block);
    this.seal();
    this.blocks.push(block);
    this.blocked += block.length;
  }

  /** Removes and returns the oldest `max` events (or all of them). */
  take(max: number): EventColumns {
    this.seal();
    const n = Math.min(max, this.blocked);
    const parts: EventColumns[] = [];
    let got = 0;
    while (got < n) {
      const b = this.blocks[0]!;
      const want = n - got;
      if (b.length <= want) {
        parts.push(b);
        this.blocks.shift();
        got += b.length;
      } else {
        parts.push(slice(b, 0, want));
        this.blocks[0] = slice(b, want, b.length);
        got += want;
      }
    }
    this.blocked -= n;
    return parts.length === 1 ? parts[0]! : concat(parts, n);
  }

  /** Turns the pending single events into a block, so blocks keep the recording order. */
  private seal(): void {
    const c = this.cols;
    if (c.level.length === 0) return;
    this.cols = empty();
    this.blocks.push({
      length: c.level.length,
      level: Float64Array.from(c.level),
      ts_ms: Float64Array.from(c.ts_ms),
      latency_ms: Float64Array.from(c.latency_ms),
      compute_ms: Float64Array.from(c.compute_ms),
      queue_ms: Float64Array.from(c.queue_ms),
      status: Uint16Array.from(c.status),
      ...(c.named ? { name: dictionary(c.name) } : {}),
    });
    this.blocked += c.level.length;
  }
}

/**
 * A Server-Timing time is the server's clock, the latency the agent's: with coarse clocks a
 * server may report a compute or queue time a little above the latency it is part of, which the
 * API refuses beyond 1 ms or 1%. The part is clamped to the whole here, where every recorder's
 * events pass (single events, the native engine's blocks, replays of what this SDK recorded).
 * NaN (no value) compares false and stays NaN.
 */
function clampServerTimes(b: EventColumns): void {
  const { latency_ms: latency, compute_ms: compute, queue_ms: queue } = b;
  for (let i = 0; i < b.length; i++) {
    const l = latency[i]!;
    if (compute[i]! > l) compute[i] = l;
    if (queue[i]! > l) queue[i] = l;
  }
}

/** Views, not copies: the rows [from, to) of a block. */
function slice(b: EventColumns, from: number, to: number): EventColumns {
  const out = { length: to - from, status: b.status.subarray(from, to) } as Building;
  for (const k of F64_COLUMNS) out[k] = b[k].subarray(from, to);
  if (b.name) out.name = { values: b.name.values, index: b.name.index.subarray(from, to) };
  return out;
}

/** Names one per event → the dictionary-coded column (code of '' kept: an event without a name). */
function dictionary(names: readonly string[]): EventNames {
  const codes = new Map<string, number>();
  const values: string[] = [];
  const index = new Uint32Array(names.length);
  names.forEach((n, i) => {
    let code = codes.get(n);
    if (code === undefined) {
      code = values.push(n) - 1;
      codes.set(n, code);
    }
    index[i] = code;
  });
  return { values, index };
}

function concat(parts: EventColumns[], n: number): EventColumns {
  const out = { length: n, status: new Uint16Array(n) } as Building;
  for (const k of F64_COLUMNS) out[k] = new Float64Array(n);
  let at = 0;
  for (const p of parts) {
    for (const k of F64_COLUMNS) out[k].set(p[k], at);
    out.status.set(p.status, at);
    at += p.length;
  }
  // Names: the parts' lists joined (not deduplicated), each part's codes shifted past the lists
  // before it; a part without names points at one '' entry.
  if (parts.some((p) => p.name)) {
    const values: string[] = [''];
    const index = new Uint32Array(n);
    let row = 0;
    for (const p of parts) {
      if (p.name) {
        const base = values.length;
        values.push(...p.name.values);
        for (let i = 0; i < p.length; i++) index[row + i] = base + p.name.index[i]!;
      }
      row += p.length;
    }
    out.name = { values, index };
  }
  return out;
}
