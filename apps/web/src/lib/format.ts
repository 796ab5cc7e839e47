/**
 * The page's own number and time formatting: axis ticks, counts, durations, clock times, fitted
 * parameters with their errors. A level, a QPS, a latency, a percentage, a change and its interval are
 * figures the API's Markdown and the CLI print too: those come from `@kneeboard/contracts/figures`
 * and are not written again here. Locale and time zone are fixed arguments (not the runtime's
 * defaults) so the server and the browser render the same text.
 */

const LOCALE = 'en-US';
const DASH = '—';

const countFormat = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 });
const tickFormat = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 3, useGrouping: false });
const compactFormat = new Intl.NumberFormat(LOCALE, { notation: 'compact', maximumFractionDigits: 1 });

export function formatCount(value: number | null | undefined): string {
  return value == null || !Number.isFinite(value) ? DASH : countFormat.format(value);
}

/** Short tick labels: `1.2k`, `15`, `0.5`. */
export function formatCompact(value: number): string {
  return Math.abs(value) < 1000 ? tickFormat.format(Number(value.toPrecision(3))) : compactFormat.format(value);
}

/** `850 ms`, `42 s`, `4m 12s`, `1h 02m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return DASH;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const totalS = Math.floor(ms / 1000);
  if (totalS < 60) return `${totalS} s`;
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const s = totalS % 60;
  if (h === 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${h}h ${String(m).padStart(2, '0')}m`;
}

/** `just now`, `12 s ago`, `5 min ago`, `3 h ago`, `2 d ago`; future times (clock skew) read as just now. */
export function formatRelative(thenMs: number, nowMs: number): string {
  const s = Math.floor((nowMs - thenMs) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/** `2025-11-21 04:22:10` in the given IANA time zone (the server renders UTC, the browser its own zone). */
export function formatTimestamp(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`;
}

/**
 * A fitted or derived number with `digits` significant digits: `0.129`, `0.00274`, `24.2`, `108`,
 * `4,117` (grouped, no decimals, once the integer part has more digits than asked for). Very small
 * values use an exponent (`1.2e-7`) rather than a run of zeros.
 */
export function formatSignificant(value: number | null | undefined, digits = 3): string {
  if (value == null || !Number.isFinite(value)) return DASH;
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
