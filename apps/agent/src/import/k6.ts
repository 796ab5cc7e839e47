import { bytesIndex, byteIndex, hasPrefix } from './byte-lines.ts';
import { parseNumberBytes } from './byte-number.ts';
import { parseIsoBytes } from './iso-time.ts';
import type { ByteLineParser, LineKind, LineParser, Parsed, ToolSpec } from './records.ts';
import { jsonStringEnd, NameFromBytes } from './request-name.ts';

/**
 * k6 `--out json` (JSON lines): one `Point` line per metric sample. A request is its
 * `http_req_duration` sample (or `http_req_waiting`, time to first byte, with --latency-metric):
 * `data.time` is when the request ended (k6 stamps HTTP samples with the trail's end time),
 * `data.value` the latency in ms, `tags.status` the HTTP status ("0" when it failed without one).
 * The `vus` samples (one a second) are the load schedule. Every other metric is skipped, counted.
 *
 * Lines are read as bytes, by position, never decoded or JSON.parsed: k6 writes each envelope in
 * one fixed key order (easyjson: metric, type, data{time, value, tags}), a request costs ~13
 * lines, and 12 of them are skipped on their first bytes. Free text (URLs, names) only occurs
 * inside tags, where every quote is escaped (`\"`): the unescaped `"status":"` cannot occur
 * inside a string, so finding it finds the status tag — and the same holds for the `name` tag
 * (k6 sets it to the URL unless the script names the request; the `url` tag where it is absent),
 * the request's name.
 */
const ascii = (s: string) => Buffer.from(s, 'latin1');
const POINT = ascii('{"metric":"');
const METRIC_DEFINITION = ascii('{"type":"Metric"');
const STATUS = ascii('"status":"');
const VALUE = ascii('","value":');
const NAME = ascii('"name":"');
const URL_TAG = ascii('"url":"');

export const K6_LATENCY_METRICS = ['http_req_duration', 'http_req_waiting'] as const;
export type K6LatencyMetric = (typeof K6_LATENCY_METRICS)[number];
/** What `kneeboard import k6` reads as latency unless --latency-metric says otherwise. */
export const K6_DEFAULT_LATENCY_METRIC: K6LatencyMetric = 'http_req_duration';

export function k6ByteParser(latencyMetric: K6LatencyMetric = K6_DEFAULT_LATENCY_METRIC): ByteLineParser {
  const eventPrefix = ascii(`{"metric":"${latencyMetric}","type":"Point","data":{"time":"`);
  const vusPrefix = ascii('{"metric":"vus","type":"Point","data":{"time":"');
  const names = new NameFromBytes();
  const nameOf = (b: Uint8Array, from: number, end: number): string => {
    for (const tag of [NAME, URL_TAG]) {
      const at = bytesIndex(b, tag, from, end);
      if (at === -1) continue;
      const close = jsonStringEnd(b, at + tag.length, end);
      if (close !== -1) return names.read(b, at + tag.length, close);
    }
    return '';
  };
  return (b: Uint8Array, start: number, end: number, out: Parsed): LineKind => {
    if (end === start) return bad(out, 'empty line');
    if (b[end - 1] !== 125 /* } */) return bad(out, 'not a JSON object (cut off?)');
    if (hasPrefix(b, start, end, eventPrefix)) {
      if (!readTimeAndValue(b, start + eventPrefix.length, end, out)) return 'bad';
      const at = bytesIndex(b, STATUS, start + eventPrefix.length, end);
      if (at === -1) return bad(out, `${latencyMetric} sample without a status tag (keep k6's default --system-tags)`);
      const from = at + STATUS.length;
      const close = byteIndex(b, 34, from, end);
      let status = 0;
      for (let i = from; i < close; i++) {
        const c = b[i]! - 48;
        if (c < 0 || c > 9) return bad(out, 'status tag is not an HTTP status');
        status = status * 10 + c;
      }
      if (close === -1 || close === from || close - from > 3) return bad(out, 'status tag is not an HTTP status');
      if (out.latencyMs < 0) return bad(out, 'negative latency');
      out.status = status;
      out.level = Number.NaN;
      out.name = nameOf(b, start + eventPrefix.length, end);
      return 'event';
    }
    if (hasPrefix(b, start, end, vusPrefix)) {
      if (!readTimeAndValue(b, start + vusPrefix.length, end, out)) return 'bad';
      out.level = out.latencyMs;
      return 'level';
    }
    if (hasPrefix(b, start, end, POINT) || hasPrefix(b, start, end, METRIC_DEFINITION)) return 'skip';
    return bad(out, 'not a k6 JSON output line');
  };
}

/** The same parser over a decoded line (tests, and the schedule pass). */
export function k6Parser(latencyMetric: K6LatencyMetric = K6_DEFAULT_LATENCY_METRIC): LineParser {
  const parse = k6ByteParser(latencyMetric);
  return (line, out) => {
    const b = Buffer.from(line, 'utf8');
    return parse(b, 0, b.length, out);
  };
}

/** Reads `…time":"<iso>","value":<number>` starting at the time string into tsMs and latencyMs. */
function readTimeAndValue(b: Uint8Array, from: number, end: number, out: Parsed): boolean {
  const endTime = byteIndex(b, 34, from, end);
  out.tsMs = endTime === -1 ? Number.NaN : parseIsoBytes(b, from, endTime);
  if (Number.isNaN(out.tsMs)) return !bad(out, 'unreadable data.time');
  if (!hasPrefix(b, endTime, end, VALUE)) return !bad(out, 'no data.value after data.time');
  const v = endTime + VALUE.length;
  let stop = byteIndex(b, 44 /* , */, v, end);
  if (stop === -1) stop = byteIndex(b, 125 /* } */, v, end);
  out.latencyMs = stop === -1 ? Number.NaN : parseNumberBytes(b, v, stop);
  if (!Number.isFinite(out.latencyMs) || stop === v) return !bad(out, 'data.value is not a number');
  return true;
}

function bad(out: Parsed, reason: string): 'bad' {
  out.reason = reason;
  return 'bad';
}

export function k6Tool(latencyMetric: K6LatencyMetric = K6_DEFAULT_LATENCY_METRIC): ToolSpec {
  return {
    name: 'k6',
    identity: `k6:${latencyMetric}`,
    loadModel: 'closed',
    parameter: 'vus',
    levelsFrom: 'the vus samples (each change of the VU count is a step)',
    format: { kind: 'lines', open: () => k6ByteParser(latencyMetric), scheduleNeedle: '{"metric":"vus","type":"Point"' },
  };
}
