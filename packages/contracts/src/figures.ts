/**
 * How a figure reads, everywhere: the API's Markdown, the analysis' sentences, the web app and the
 * CLI all print a level, a QPS, a latency, requests in flight, a percentage, a change and its
 * interval through these functions, so one number never reads two ways. Locale-independent
 * (fixed `en-US`, not the runtime's default), so Node and every browser give the same text; pure
 * TypeScript, so contracts stays zod-only.
 * A missing or non-finite value prints as a dash, never as 0.
 */

const DASH = '—';
const MINUS = '−';

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const twoDecimals = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

const missing = (x: number | null | undefined): x is null | undefined => x == null || !Number.isFinite(x);

/**
 * A load level, a label like a flag value: `8`, `1024` (never grouped), `12.5`, `0.0125`. A level
 * that is not a whole number (a fitted N*, a refined level) gets three significant digits, but
 * never loses its integer digits: `17.827 → 17.8`, `1359.6 → 1360`.
 */
export function formatLevel(level: number): string {
  if (!Number.isFinite(level)) return DASH;
  if (Number.isInteger(level)) return String(level);
  const integerDigits = Math.abs(level) >= 1 ? Math.floor(Math.log10(Math.abs(level))) + 1 : 1;
  return String(Number(level.toPrecision(Math.max(3, integerDigits))));
}

/** Throughput in req/s: grouped whole numbers from 100 (`120,797`), one decimal below (`9.1`, `99.4`). */
export function formatQps(qps: number | null | undefined): string {
  if (missing(qps)) return DASH;
  return Math.abs(qps) >= 100 ? whole.format(qps) : oneDecimal.format(qps);
}

/** A latency in milliseconds, about three significant digits: `0.25`, `12.4`, `1,778`. The unit is the caller's. */
export function formatMs(ms: number | null | undefined): string {
  if (missing(ms)) return DASH;
  const abs = Math.abs(ms);
  if (abs >= 100) return whole.format(ms);
  return abs >= 10 ? oneDecimal.format(ms) : twoDecimals.format(ms);
}

/** Requests in flight (a mean, compared with the level): one decimal, `12.5`, `8.0`, `1,000.0`. */
export function formatInFlight(count: number | null | undefined): string {
  return missing(count) ? DASH : oneDecimal.format(count);
}

/** A ratio as a percentage (efficiency, a share of the level): `63%`, `100%`, `104%`; one decimal below 10% (`4.8%`, `1.8%`). */
export function formatPercent(ratio: number | null | undefined): string {
  if (missing(ratio)) return DASH;
  const pct = ratio * 100;
  if (pct !== 0 && Math.abs(pct) < 10) return `${Number(pct.toFixed(1))}%`;
  return `${Math.round(pct)}%`;
}

/** One decimal under 10%, so a small change stays distinct from none. */
const changeDigits = (ratio: number) => (Math.abs(ratio) < 0.1 ? 1 : 0);

/** A signed percentage with exactly `digits` decimals; one that rounds to zero is `±0%`, not `+0%` or `−0%`. */
function signedPercent(ratio: number, digits: number): string {
  const text = Math.abs(ratio * 100).toFixed(digits);
  if (Number(text) === 0) return `±${text}%`;
  return `${ratio > 0 ? '+' : MINUS}${text}%`;
}

/** A relative change (0.31 = 31% more) as a signed percentage with a true minus: `+31%`, `−4.2%`, `±0.0%`. */
export function formatChange(ratio: number | null | undefined): string {
  if (missing(ratio)) return DASH;
  return signedPercent(ratio, changeDigits(ratio));
}

/**
 * An interval of relative changes, each end signed and with its `%`: `+29%…+33%`, `−8.1%…+2.4%`.
 * Both ends get the same decimals: one if either is under 10%, then more (up to three) until the
 * ends differ, so only data with no spread prints a zero-width interval.
 */
export function formatChangeInterval(low: number | null | undefined, high: number | null | undefined): string {
  if (missing(low) || missing(high)) return DASH;
  let digits = Math.max(changeDigits(low), changeDigits(high));
  while (digits < 3 && low !== high && signedPercent(low, digits) === signedPercent(high, digits)) digits++;
  return `${signedPercent(low, digits)}…${signedPercent(high, digits)}`;
}

/**
 * Cores in a cost sentence (issue 28's "7.8 of 8 cores busy"): one decimal from 1 (`7.8`, `16.0`),
 * two below (`0.54`); whole counts stay whole (`8`): the cores a machine or a cgroup has.
 */
export function formatCoresUsed(cores: number | null | undefined): string {
  if (missing(cores)) return DASH;
  if (Number.isInteger(cores)) return whole.format(cores);
  return Math.abs(cores) >= 1 ? oneDecimal.format(cores) : twoDecimals.format(cores);
}

/** Bytes (peak memory) in binary units, one decimal: `512 B`, `48.3 MiB`, `1.2 GiB`. */
export function formatBytes(bytes: number | null | undefined): string {
  if (missing(bytes)) return DASH;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${whole.format(value)} B` : `${oneDecimal.format(value)} ${units[unit]}`;
}

/** A change with its interval in brackets, `+31% [+29%…+33%]`; the change alone without an interval. */
export function formatChangeWithInterval(change: number | null | undefined, low: number | null | undefined, high: number | null | undefined): string {
  if (missing(change)) return DASH;
  return missing(low) || missing(high) ? formatChange(change) : `${formatChange(change)} [${formatChangeInterval(low, high)}]`;
}
