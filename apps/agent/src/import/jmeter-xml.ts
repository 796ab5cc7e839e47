import { isSuccessStatus } from '@kneeboard/contracts';
import type { LineKind, LineParser, Parsed } from './records.ts';

/** The attributes a sample's start tag carries that the import reads (JMeter's short names). */
const ATTRIBUTE = /\s(t|ts|rc|s|na)="([^"]*)"/g;

/**
 * JMeter's JTL in XML (`jmeter.save.saveservice.output_format=xml`): one `<httpSample …>` (or
 * `<sample …>` for other samplers) per sample, attributes on its start tag — `ts` the start in
 * epoch ms, `t` the elapsed ms, `rc` the response code, `s` success, `na` all active threads (the
 * level). JMeter writes each start tag on one line; sub-results (redirects, embedded resources)
 * nest inside their parent and are not counted, as JMeter's own totals do not count them. Lines
 * inside a sample (URL, response data) are skipped; anything else outside one is bad.
 */
export function jmeterXmlParser(): LineParser {
  let depth = 0;
  return (raw: string, out: Parsed): LineKind => {
    const line = raw.trim();
    if (line.startsWith('<httpSample ') || line.startsWith('<sample ')) {
      const top = depth === 0;
      const selfClosing = line.endsWith('/>');
      if (!line.endsWith('>')) return bad(out, 'a sample tag cut off (not on one line?)');
      if (!selfClosing) depth += 1;
      return top ? readSample(line, out) : 'skip';
    }
    if (line === '</httpSample>' || line === '</sample>') {
      if (depth === 0) return bad(out, 'a closing tag without its sample');
      depth -= 1;
      return 'skip';
    }
    if (depth > 0 || line.length === 0 || line.startsWith('<?xml') || line.startsWith('<testResults') || line === '</testResults>') return 'skip';
    return bad(out, 'not a JTL XML sample');
  };
}

function readSample(tag: string, out: Parsed): LineKind {
  let t: string | undefined;
  let ts: string | undefined;
  let rc = '';
  let success = 'true';
  let threads: string | undefined;
  for (const m of tag.matchAll(ATTRIBUTE)) {
    const v = m[2]!;
    switch (m[1]) {
      case 't':
        t = v;
        break;
      case 'ts':
        ts = v;
        break;
      case 'rc':
        rc = v;
        break;
      case 's':
        success = v;
        break;
      case 'na':
        threads = v;
        break;
    }
  }
  if (ts === undefined || !/^\d+$/.test(ts)) return bad(out, 'ts is not epoch ms');
  if (t === undefined || !/^\d+$/.test(t)) return bad(out, 't (elapsed) is not a whole number of ms');
  const status = /^\d{1,3}$/.test(rc) ? Number(rc) : 0;
  out.latencyMs = Number(t);
  out.tsMs = Number(ts) + out.latencyMs;
  // A sample JMeter failed (an assertion) with a 2xx code is an error all the same.
  out.status = success === 'false' && isSuccessStatus(status) ? 0 : status;
  const n = threads === undefined ? Number.NaN : Number(threads);
  out.level = n > 0 ? n : Number.NaN;
  return 'event';
}

function bad(out: Parsed, reason: string): 'bad' {
  out.reason = reason;
  return 'bad';
}
