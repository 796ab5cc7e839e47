import { parseIsoMs } from './iso-time.ts';
import type { LineKind, LineParser, Parsed, ToolSpec } from './records.ts';

/**
 * k6 `--out json` (JSON lines): one `Point` line per metric sample. A request is its
 * `http_req_duration` sample (or `http_req_waiting`, time to first byte, with --latency-metric):
 * `data.time` is when the request ended (k6 stamps HTTP samples with the trail's end time),
 * `data.value` the latency in ms, `tags.status` the HTTP status ("0" when it failed without one).
 * The `vus` samples (one a second) are the load schedule. Every other metric is skipped, counted.
 *
 * Lines are read by position rather than JSON.parse: k6 writes each envelope in one fixed key
 * order (easyjson: metric, type, data{time, value, tags}), and a request costs ~14 lines.
 */
const POINT = '{"metric":"';
const METRIC_DEFINITION = '{"type":"Metric"';

export const K6_LATENCY_METRICS = ['http_req_duration', 'http_req_waiting'] as const;
export type K6LatencyMetric = (typeof K6_LATENCY_METRICS)[number];

export function k6Parser(latencyMetric: K6LatencyMetric = 'http_req_duration'): LineParser {
  const eventPrefix = `${POINT}${latencyMetric}","type":"Point","data":{"time":"`;
  const vusPrefix = `${POINT}vus","type":"Point","data":{"time":"`;
  return (line: string, out: Parsed): LineKind => {
    if (line.charCodeAt(line.length - 1) !== 125 /* } */) return bad(out, line.length === 0 ? 'empty line' : 'not a JSON object (cut off?)');
    if (line.startsWith(eventPrefix)) {
      if (!readTimeAndValue(line, eventPrefix.length, out)) return 'bad';
      const at = line.indexOf('"status":"', eventPrefix.length);
      if (at === -1) return bad(out, `${latencyMetric} sample without a status tag (keep k6's default --system-tags)`);
      const from = at + 10;
      const status = Number(line.slice(from, line.indexOf('"', from)));
      if (!Number.isInteger(status) || status < 0 || status > 999) return bad(out, 'status tag is not an HTTP status');
      if (out.latencyMs < 0) return bad(out, 'negative latency');
      out.status = status;
      out.level = Number.NaN;
      return 'event';
    }
    if (line.startsWith(vusPrefix)) {
      if (!readTimeAndValue(line, vusPrefix.length, out)) return 'bad';
      out.level = out.latencyMs;
      return 'level';
    }
    if (line.startsWith(POINT) || line.startsWith(METRIC_DEFINITION)) return 'skip';
    return bad(out, 'not a k6 JSON output line');
  };
}

/** Reads `…time":"<iso>","value":<number>` starting at the time string into tsMs and latencyMs. */
function readTimeAndValue(line: string, from: number, out: Parsed): boolean {
  const endTime = line.indexOf('"', from);
  out.tsMs = parseIsoMs(line.slice(from, endTime));
  if (Number.isNaN(out.tsMs)) return !bad(out, 'unreadable data.time');
  if (!line.startsWith('","value":', endTime)) return !bad(out, 'no data.value after data.time');
  const v = endTime + 10;
  let end = line.indexOf(',', v);
  if (end === -1) end = line.indexOf('}', v);
  out.latencyMs = Number(line.slice(v, end));
  if (end === -1 || !Number.isFinite(out.latencyMs) || end === v) return !bad(out, 'data.value is not a number');
  return true;
}

function bad(out: Parsed, reason: string): 'bad' {
  out.reason = reason;
  return 'bad';
}

export function k6Tool(latencyMetric: K6LatencyMetric = 'http_req_duration'): ToolSpec {
  return {
    name: 'k6',
    identity: `k6:${latencyMetric}`,
    loadModel: 'closed',
    parameter: 'vus',
    levelsFrom: 'the vus samples (each change of the VU count is a step)',
    format: { kind: 'lines', open: () => k6Parser(latencyMetric), scheduleNeedle: '{"metric":"vus","type":"Point"' },
  };
}
