/**
 * The page's own number and time formatting: axis ticks, counts, durations, clock times. A level,
 * a QPS, a latency, a percentage, a change and its interval, a fitted parameter with its error are
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
