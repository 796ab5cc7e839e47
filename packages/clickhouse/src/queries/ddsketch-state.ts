/**
 * Reads a ClickHouse DDSketch state (`quantilesDDState`/`…MergeState`, as `hex()` returns it) and
 * answers quantiles from it in JavaScript, the way ClickHouse's own `quantilesDD` does.
 *
 * Why: a comparison wants 20,000 evenly spaced quantiles per level. ClickHouse answers each one by
 * walking the sketch's bins from the start (20,000 × bins per level: ~240 ms for a 10-level run);
 * one merged state per level is ~3 KB, and one walk here answers all 20,000 in order.
 *
 * The layout (ClickHouse src/AggregateFunctions/DDSketch.h, Store.h, Mapping.h; DataDog's DDSketch
 * flags): mapping flag 0x02, gamma and index offset as float64 LE; positive store flag 0x01, then a
 * store; negative store flag 0x03, then a store; zero-count flag 0x04, then a float64 LE. A store
 * is dense (0x0C: uvarint bins, zigzag varint first key, zigzag varint key step, float64 counts)
 * or sparse (0x04: uvarint bins, then zigzag varint key delta and float64 count per bin).
 * Anything else is refused: the caller falls back to ClickHouse's own answer.
 */

export interface DDSketchState {
  gamma: number;
  indexOffset: number;
  /** Keys ascending, with their counts (empty bins left out). */
  positive: { keys: number[]; counts: number[]; total: number };
  negative: { keys: number[]; counts: number[]; total: number };
  zeroCount: number;
}

const FLAG_MAPPING_LOG = 0x02;
const FLAG_POSITIVE = 0x01;
const FLAG_NEGATIVE = 0x03;
const FLAG_ZERO_COUNT = 0x04;
const BINS_SPARSE = 0x04;
const BINS_DENSE = 0x0c;
/** More bins than a float64's whole range at any sensible accuracy: a corrupt length, not a sketch. */
const MAX_BINS = 1_000_000;

class Reader {
  private at = 0;
  constructor(private readonly bytes: Buffer) {}

  byte(): number {
    if (this.at >= this.bytes.length) throw new Error('DDSketch state ends early');
    return this.bytes[this.at++] as number;
  }

  float64(): number {
    if (this.at + 8 > this.bytes.length) throw new Error('DDSketch state ends early');
    const v = this.bytes.readDoubleLE(this.at);
    this.at += 8;
    return v;
  }

  /** LEB128, as ClickHouse's readVarUInt. */
  uvarint(): number {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      const b = this.byte();
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new Error('DDSketch state has a varint longer than 64 bits');
  }

  /** Zigzag LEB128, as ClickHouse's readVarInt. */
  varint(): number {
    const u = this.uvarint();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  get done(): boolean {
    return this.at === this.bytes.length;
  }
}

function readStore(r: Reader): DDSketchState['positive'] {
  const mode = r.byte();
  const n = r.uvarint();
  if (n > MAX_BINS) throw new Error(`DDSketch store claims ${n} bins`);
  const keys: number[] = [];
  const counts: number[] = [];
  let total = 0;
  const add = (key: number, count: number) => {
    if (count === 0) return;
    keys.push(key);
    counts.push(count);
    total += count;
  };
  if (mode === BINS_DENSE) {
    let key = r.varint();
    const step = r.varint();
    for (let i = 0; i < n; i++, key += step) add(key, r.float64());
  } else if (mode === BINS_SPARSE) {
    let key = 0;
    for (let i = 0; i < n; i++) {
      key += r.varint();
      add(key, r.float64());
    }
  } else {
    throw new Error(`DDSketch store encoding 0x${mode.toString(16)} is not one ClickHouse writes`);
  }
  return { keys, counts, total };
}

export function decodeDDSketchState(hex: string): DDSketchState {
  const r = new Reader(Buffer.from(hex, 'hex'));
  if (r.byte() !== FLAG_MAPPING_LOG) throw new Error('DDSketch state does not start with a logarithmic mapping');
  const gamma = r.float64();
  const indexOffset = r.float64();
  if (!(gamma > 1) || !Number.isFinite(indexOffset)) throw new Error(`DDSketch state has gamma ${gamma}, offset ${indexOffset}`);
  if (r.byte() !== FLAG_POSITIVE) throw new Error('DDSketch state has no positive store');
  const positive = readStore(r);
  if (r.byte() !== FLAG_NEGATIVE) throw new Error('DDSketch state has no negative store');
  const negative = readStore(r);
  if (r.byte() !== FLAG_ZERO_COUNT) throw new Error('DDSketch state has no zero count');
  const zeroCount = r.float64();
  if (!r.done) throw new Error('DDSketch state has bytes after its zero count');
  if (!(zeroCount >= 0) || !Number.isFinite(zeroCount)) throw new Error(`DDSketch state has zero count ${zeroCount}`);
  return { gamma, indexOffset, positive, negative, zeroCount };
}

/**
 * ClickHouse's `quantilesDD(relativeAccuracy, …levels)` of the state (one walk of the bins when
 * `levels` ascend, as a grid does; a level below the one before starts the walk again):
 * rank = level × (count − 1); the first bin whose running count passes the rank; that bin's value,
 * gamma^(key − offset) × (1 + relativeAccuracy). NaN for an empty sketch, as ClickHouse.
 */
export function ddSketchQuantiles(s: DDSketchState, relativeAccuracy: number, levels: readonly number[]): Float64Array {
  const out = new Float64Array(levels.length);
  const count = s.positive.total + s.negative.total + s.zeroCount;
  if (count === 0) return out.fill(Number.NaN);
  // Mapping.h computes gamma^x as exp(x / multiplier), multiplier = 1 / log(gamma): the same steps
  // here give the same doubles.
  const multiplier = 1 / Math.log(s.gamma);
  const value = (key: number) => Math.exp((key - s.indexOffset) / multiplier) * (1 + relativeAccuracy);
  const neg = s.negative;
  let posAt = 0;
  let posRunning = s.positive.counts[0] ?? 0;
  for (let i = 0; i < levels.length; i++) {
    const rank = (levels[i] as number) * (count - 1);
    if (rank < neg.total) {
      // ClickHouse: keyAtRank(total − rank − 1, lower = false), the smallest key whose running
      // count reaches total − rank. (Latencies are never negative; this is here to be exact.)
      const reversed = neg.total - rank - 1;
      let running = 0;
      let key = neg.keys.at(-1) as number;
      for (let j = 0; j < neg.keys.length; j++) {
        running += neg.counts[j] as number;
        if (running >= reversed + 1) {
          key = neg.keys[j] as number;
          break;
        }
      }
      out[i] = -value(key);
    } else if (rank < s.zeroCount + neg.total) {
      out[i] = 0;
    } else {
      const within = rank - s.zeroCount - neg.total;
      if (i > 0 && (levels[i] as number) < (levels[i - 1] as number)) {
        posAt = 0;
        posRunning = s.positive.counts[0] ?? 0;
      }
      while (posRunning <= within && posAt < s.positive.keys.length - 1) posRunning += s.positive.counts[++posAt] as number;
      out[i] = value(s.positive.keys[posAt] as number);
    }
  }
  return out;
}
