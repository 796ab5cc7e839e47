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

// Why `toFixed` lives only in this file: a figure printed with a bare `toFixed` in a component or a
// CLI line is a second rule for the same number. The shared ESLint config refuses it elsewhere.

const ungroupedOneDecimal = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false });
const ungroupedTwoDecimals = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: false });

/** A duration in seconds with one decimal, never grouped: a measured window `9.8`, a run's elapsed `3600.0`. The unit is the caller's. */
export function formatSeconds(seconds: number | null | undefined): string {
  return missing(seconds) ? DASH : ungroupedOneDecimal.format(seconds);
}

/** Whole seconds (`12`), for an age counted up on screen. */
export function formatWholeSeconds(seconds: number | null | undefined): string {
  return missing(seconds) ? DASH : String(Math.round(seconds));
}

/**
 * A clock reading in milliseconds with one decimal (`0.4`, `12.5`): an agent's clock offset, its
 * round trip, how late a step started. Not a latency percentile (that is `formatMs`).
 */
export function formatClockMs(ms: number | null | undefined): string {
  return missing(ms) ? DASH : ungroupedOneDecimal.format(ms);
}

/** A clock offset with its sign and a true minus: `+0.4`, `−12.5`. */
export function formatSignedClockMs(ms: number | null | undefined): string {
  if (missing(ms)) return DASH;
  return `${ms >= 0 ? '+' : MINUS}${ungroupedOneDecimal.format(Math.abs(ms))}`;
}

/** A share with exactly one decimal, for a rate read against others: an error rate `0.3%`, a noise band `4.0%`. */
export function formatShare(ratio: number | null | undefined): string {
  return missing(ratio) ? DASH : `${ungroupedOneDecimal.format(ratio * 100)}%`;
}

/** A threshold someone chose, as they chose it: up to two decimals, none trailing (`5%`, `2.5%`, `12.25%`). */
export function formatPercentSetting(ratio: number | null | undefined): string {
  if (missing(ratio)) return DASH;
  return `${Number((ratio * 100).toFixed(2))}%`;
}

/** A coefficient of determination: `0.98` (`digits` decimals, 2 by default; `0.978` with 3). */
export function formatR2(r2: number | null | undefined, digits = 2): string {
  return missing(r2) ? DASH : r2.toFixed(digits);
}

/** Degrees of freedom of an interval: `∞` from 100,000, whole from 10 (`24`), one decimal below (`3.4`). */
export function formatDegreesOfFreedom(df: number | null | undefined): string {
  if (missing(df)) return DASH;
  if (df >= 1e5) return '∞';
  return df >= 10 ? df.toFixed(0) : df.toFixed(1);
}

/** CPU cores in use, two decimals: `0.37`, `1.92`. */
export function formatCores(cores: number | null | undefined): string {
  return missing(cores) ? DASH : ungroupedTwoDecimals.format(cores);
}

/** A percentile's name without the `p`: `50`, `99.9`, `99.99` (up to four decimals, none trailing). */
export function formatPercentile(percent: number): string {
  return String(Number(percent.toFixed(4)));
}

/**
 * A number in a CSV cell, at the precision the pages show: whole from 100 (and whole numbers), one
 * decimal from 10 (`12.4`), two below (`0.25`), none trailing. Not finite: as JavaScript writes it.
 */
export function formatCsvNumber(value: number): string {
  const abs = Math.abs(value);
  if (Number.isInteger(value) || abs >= 100 || !Number.isFinite(value)) return String(Number.isFinite(value) ? Math.round(value) : value);
  return String(Number(value.toFixed(abs >= 10 ? 1 : 2)));
}

/** An axis label in an embedded chart: `1.5k` from 1,000, else up to two decimals, grouped (`12.25`, `512`). */
export function formatEmbedTick(value: number): string {
  return Math.abs(value) >= 1000
    ? `${(value / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })}k`
    : value.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** Seconds since a run started on a time axis: up to `decimals` decimals, none trailing (`12`, `12.5`, `0.25`). */
export function formatElapsedSeconds(seconds: number, decimals = 2): string {
  return Number.isFinite(seconds) ? String(Number(seconds.toFixed(decimals))) : DASH;
}

const countFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/**
 * A fitted or derived number with `digits` significant digits: `0.129`, `0.00274`, `24.2`, `108`,
 * `4,117` (grouped, no decimals, once the integer part has more digits than asked for). Very small
 * values use an exponent (`1.2e-7`) rather than a run of zeros.
 */
export function formatSignificant(value: number | null | undefined, digits = 3): string {
  if (missing(value)) return DASH;
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= Math.pow(10, digits)) return countFormat.format(value);
  if (abs < 1e-4) {
    const [mantissa = '', exp = ''] = value.toExponential(digits - 1).split('e');
    return `${String(Number(mantissa))}e${exp.replace('+', '')}`;
  }
  return String(Number(value.toPrecision(digits)));
}

/**
 * A fitted value with its standard error, both to the value's precision (`digits` significant
 * digits): `24.2 ± 3.3`, `0.00274 ± 0.00107`, `312 ± 46`. Very small values share one exponent:
 * `(2.30 ± 0.80)e-6`. An error below that precision prints as `± <0.001`.
 */
export function formatWithError(value: number, se: number | null | undefined, digits = 3): string {
  if (!Number.isFinite(value)) return DASH;
  if (se == null || !Number.isFinite(se)) return formatSignificant(value, digits);
  // A parameter at exactly 0 with a rounding-noise error (1e-16) sits on its bound: no ± to give.
  if (value === 0 && se < 1e-12) return '0';
  const abs = Math.abs(value);
  if (value !== 0 && abs < 1e-4) {
    const exp = Math.floor(Math.log10(abs));
    const scale = Math.pow(10, exp);
    return `(${(value / scale).toFixed(digits - 1)} ± ${(se / scale).toFixed(digits - 1)})e${exp}`;
  }
  if (abs >= Math.pow(10, digits)) return `${countFormat.format(value)} ± ${countFormat.format(se)}`;
  // A zero value has no precision of its own: give the error two significant digits instead.
  const decimals =
    value !== 0
      ? Math.min(12, Math.max(0, digits - 1 - Math.floor(Math.log10(abs))))
      : se > 0
        ? Math.min(12, Math.max(0, 1 - Math.floor(Math.log10(se))))
        : 0;
  const err = se > 0 && Number(se.toFixed(decimals)) === 0 ? `<${Math.pow(10, -decimals).toFixed(decimals)}` : se.toFixed(decimals);
  return `${value.toFixed(decimals)} ± ${err}`;
}
