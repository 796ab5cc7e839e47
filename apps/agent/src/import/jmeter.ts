import { isSuccessStatus } from '@kneeboard/contracts';
import { csvFields } from './csv-fields.ts';
import { jmeterXmlParser } from './jmeter-xml.ts';
import { fromText, type LineKind, type LineParser, type Parsed, type ToolSpec } from './records.ts';
import { requestName } from './request-name.ts';

/** JMeter's default CSV columns, for a JTL written without its header line. */
const DEFAULT_HEADER = 'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect';

/**
 * JMeter's JTL in CSV (the default `-l results.jtl` format). The header line names the columns;
 * `timeStamp` is when the sample started (JMeter's default `sampleresult.timestamp.start=true`)
 * in epoch ms, `elapsed` its duration in ms, `responseCode` the HTTP status (text such as
 * "Non HTTP response code: java.net.ConnectException" when there was none: status 0), and
 * `allThreads` the threads running in the whole test when it was taken — the level; `label` the
 * sampler's name, the request's name.
 */
export function jmeterParser(): LineParser {
  let cols: { ts: number; elapsed: number; code: number; success: number; threads: number; label: number } | null = null;
  // Labels repeat: each is checked and decoded once.
  const names = new Map<string, string>();
  const learn = (header: string): string | null => {
    const names = csvFields(header) ?? [];
    const at = (n: string) => names.indexOf(n);
    const c = { ts: at('timeStamp'), elapsed: at('elapsed'), code: at('responseCode'), success: at('success'), threads: at('allThreads'), label: at('label') };
    if (c.ts === -1 || c.elapsed === -1 || c.code === -1) return 'the header has no timeStamp, elapsed or responseCode column';
    cols = c;
    return null;
  };
  return (line: string, out: Parsed): LineKind => {
    if (line.length === 0) return bad(out, 'empty line');
    if (cols === null) {
      if (line.startsWith('timeStamp')) {
        const problem = learn(line);
        return problem === null ? 'skip' : bad(out, problem);
      }
      learn(DEFAULT_HEADER);
    }
    const c = cols!;
    const f = csvFields(line);
    if (f === null) return bad(out, 'unbalanced quotes (a field with a newline, or a cut-off line)');
    const ts = f[c.ts];
    const elapsed = f[c.elapsed];
    if (ts === undefined || !/^\d+$/.test(ts)) return bad(out, 'timeStamp is not epoch ms (set jmeter.save.saveservice.timestamp_format=ms)');
    if (elapsed === undefined || !/^\d+$/.test(elapsed)) return bad(out, 'elapsed is not a whole number of ms');
    const code = f[c.code] ?? '';
    const status = /^\d{1,3}$/.test(code) ? Number(code) : 0;
    out.latencyMs = Number(elapsed);
    out.tsMs = Number(ts) + out.latencyMs;
    // A sample JMeter failed (an assertion) with a 2xx code is an error all the same.
    out.status = c.success !== -1 && f[c.success] === 'false' && isSuccessStatus(status) ? 0 : status;
    const threads = c.threads === -1 ? Number.NaN : Number(f[c.threads]);
    out.level = threads > 0 ? threads : Number.NaN;
    const label = c.label === -1 ? '' : (f[c.label] ?? '');
    let name = names.get(label);
    if (name === undefined) {
      // The line was decoded as Latin-1; the label's bytes are UTF-8.
      name = requestName(Buffer.from(label, 'latin1').toString('utf8'));
      if (names.size < 10_000) names.set(label, name);
    }
    out.name = name;
    return 'event';
  };
}

function bad(out: Parsed, reason: string): 'bad' {
  out.reason = reason;
  return 'bad';
}

/**
 * A JTL is CSV or XML; which one is told by the file's first line, so each file gets the parser
 * its first line asks for.
 */
function jtlParser(): LineParser {
  let parse: LineParser | undefined;
  const jtl: LineParser = (line, out) => {
    parse ??= line.trimStart().startsWith('<') ? jmeterXmlParser() : jmeterParser();
    return parse(line, out);
  };
  jtl.end = (out) => parse?.end?.(out) ?? 'skip';
  return jtl;
}

export const jmeterTool: ToolSpec = {
  name: 'jmeter',
  identity: 'jmeter',
  loadModel: 'closed',
  parameter: 'threads',
  levelsFrom: 'the allThreads column (the threads running when each sample was taken)',
  format: { kind: 'lines', open: () => fromText(jtlParser()) },
};
