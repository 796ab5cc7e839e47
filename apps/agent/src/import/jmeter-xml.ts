import { isSuccessStatus } from '@kneeboard/contracts';
import { newParsed, type LineKind, type LineParser, type Parsed } from './records.ts';
import { requestName } from './request-name.ts';
import { clearServerTiming, serverTimingInHeaderBlock, setServerTiming } from './server-timing.ts';

/** The attributes a sample's start tag carries that the import reads (JMeter's short names). */
const ATTRIBUTE = /\s(t|ts|rc|s|na|lb)="([^"]*)"/g;

/**
 * JMeter's JTL in XML (`jmeter.save.saveservice.output_format=xml`): one `<httpSample …>` (or
 * `<sample …>` for other samplers) per sample, attributes on its start tag — `ts` the start in
 * epoch ms, `t` the elapsed ms, `rc` the response code, `s` success, `na` all active threads (the
 * level), `lb` the sampler's label (the request's name). JMeter writes each start tag on one line; sub-results (redirects, embedded resources)
 * nest inside their parent and are not counted, as JMeter's own totals do not count them. Lines
 * inside a sample (URL, response data) are skipped; anything else outside one is bad.
 *
 * With `jmeter.save.saveservice.responseHeaders=true` a sample holds its response headers
 * (`<responseHeader …>HTTP/1.1 200 OK` and one line per header up to `</responseHeader>`): a
 * Server-Timing header there gives the request its compute and queue time. Those lines follow the
 * start tag, so a sample with an element body is told at its closing tag (or, cut off before it,
 * at the end of the file); a self-closing one at once.
 */
export function jmeterXmlParser(): LineParser {
  let depth = 0;
  // The top-level sample read from its start tag, told when it closes; its Server-Timing values.
  const held = newParsed();
  let holding = false;
  let inHeaders = false;
  let timing: string[] | undefined;
  const tell = (out: Parsed): LineKind => {
    holding = false;
    out.tsMs = held.tsMs;
    out.latencyMs = held.latencyMs;
    out.status = held.status;
    out.level = held.level;
    out.name = held.name;
    if (timing === undefined) clearServerTiming(out);
    else setServerTiming(out, timing);
    return 'event';
  };
  const parse: LineParser = (raw: string, out: Parsed): LineKind => {
    if (inHeaders) {
      const close = raw.indexOf('</responseHeader>');
      // Header text is escaped (`&lt;`): a raw tag means the element never closed; read the line as usual.
      if (close !== -1 || !raw.includes('<')) {
        headerLine(close === -1 ? raw : raw.slice(0, close));
        if (close !== -1) inHeaders = false;
        return 'skip';
      }
      inHeaders = false;
    }
    const line = raw.trim();
    if (line.startsWith('<httpSample ') || line.startsWith('<sample ')) {
      const top = depth === 0;
      const selfClosing = line.endsWith('/>');
      if (!line.endsWith('>')) return bad(out, 'a sample tag cut off (not on one line?)');
      if (!selfClosing) depth += 1;
      if (!top) return 'skip';
      if (readSample(line, held) === 'bad') return bad(out, held.reason);
      timing = undefined;
      if (selfClosing) return tell(out);
      holding = true;
      return 'skip';
    }
    if (line === '</httpSample>' || line === '</sample>') {
      if (depth === 0) return bad(out, 'a closing tag without its sample');
      depth -= 1;
      return depth === 0 && holding ? tell(out) : 'skip';
    }
    // The top sample's own headers (depth 1), not a sub-result's.
    if (depth === 1 && holding && line.startsWith('<responseHeader')) {
      const open = line.indexOf('>');
      if (open === -1 || line[open - 1] === '/') return 'skip';
      const rest = line.slice(open + 1);
      const close = rest.indexOf('</responseHeader>');
      headerLine(close === -1 ? rest : rest.slice(0, close));
      inHeaders = close === -1;
      return 'skip';
    }
    if (depth > 0 || line.length === 0 || line.startsWith('<?xml') || line.startsWith('<testResults') || line === '</testResults>') return 'skip';
    return bad(out, 'not a JTL XML sample');
  };
  function headerLine(text: string): void {
    if (!holding) return;
    const values = serverTimingInHeaderBlock(unescapeXml(text));
    if (values !== undefined) (timing ??= []).push(...values);
  }
  parse.end = (out) => (holding ? tell(out) : 'skip');
  return parse;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML text as JMeter (XStream) escapes it: the five named entities and numeric ones (`&#xd;` for CR). */
function unescapeXml(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? '';
    const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

function readSample(tag: string, out: Parsed): LineKind {
  let t: string | undefined;
  let ts: string | undefined;
  let rc = '';
  let success = 'true';
  let threads: string | undefined;
  let label = '';
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
      case 'lb':
        label = v;
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
  out.name = labelName(label);
  return 'event';
}

/** An XML attribute's text (decoded as Latin-1 by the reader; its bytes are UTF-8), entities resolved. */
function labelName(raw: string): string {
  return raw === '' ? '' : requestName(unescapeXml(Buffer.from(raw, 'latin1').toString('utf8')));
}

function bad(out: Parsed, reason: string): 'bad' {
  out.reason = reason;
  return 'bad';
}
