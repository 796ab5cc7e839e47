import { followGatlingBinary, GATLING_SCHEDULE_BUCKET_MS, readGatlingBinaryRows } from './gatling-binary.ts';
import { fromText, type LineKind, type LineParser, type Parsed, type ToolSpec } from './records.ts';
import { requestName } from './request-name.ts';

/**
 * Gatling's text `simulation.log` (tab-separated; Gatling 3.0–3.12 — 3.13 and later write a binary
 * log, read by gatling-binary.ts; `sniff` picks the reader from the file's first byte). A request is a `REQUEST` record: start and end in epoch ms, then
 * OK or KO. The log carries no HTTP status: OK is stored as 200 and KO as 0 (an error). The level
 * is the number of virtual users alive, counted from the `USER … START/END` records — the most in
 * each second, as Gatling's active-users chart counts them (in a closed injection one user ends as
 * the next starts, so the instantaneous count flickers) — and each change of it is a step, as
 * Gatling's injection steps (`constantConcurrentUsers(n)` in turn) make them.
 * Older versions put a user id before some fields: the records are read by shape, not by position.
 * The request's name is the field before its start time (Gatling's request name).
 */
export function gatlingParser(): LineParser {
  let users = 0;
  const names = new Map<string, string>();
  return (line: string, out: Parsed): LineKind => {
    const f = line.split('\t');
    switch (f[0]) {
      case 'REQUEST': {
        const k = f.findIndex((v, i) => i >= 3 && (v === 'OK' || v === 'KO') && isMs(f[i - 1]) && isMs(f[i - 2]));
        if (k === -1) return bad(out, 'REQUEST record without start, end and OK/KO');
        const start = Number(f[k - 2]);
        const end = Number(f[k - 1]);
        if (end < start) return bad(out, 'ends before it starts');
        out.tsMs = end;
        out.latencyMs = end - start;
        out.status = f[k] === 'OK' ? 200 : 0;
        out.level = Number.NaN;
        const raw = k >= 3 ? f[k - 3]! : '';
        let name = names.get(raw);
        if (name === undefined) {
          // The line was decoded as Latin-1; the name's bytes are UTF-8.
          name = requestName(Buffer.from(raw, 'latin1').toString('utf8'));
          if (names.size < 10_000) names.set(raw, name);
        }
        out.name = name;
        return 'event';
      }
      case 'USER': {
        const k = f.findIndex((v) => v === 'START' || v === 'END');
        if (k === -1 || !isMs(f[k + 1])) return bad(out, 'USER record without START/END and a time');
        users += f[k] === 'START' ? 1 : -1;
        out.tsMs = Number(f[k + 1]);
        out.level = users;
        return 'level';
      }
      case 'RUN':
      case 'GROUP':
      case 'ERROR':
      case 'ASSERTION':
        return 'skip';
      default:
        return bad(out, 'not a simulation.log record');
    }
  };
}

const isMs = (v: string | undefined): boolean => v !== undefined && /^\d{12,}$/.test(v);

function bad(out: Parsed, reason: string): 'bad' {
  out.reason = reason;
  return 'bad';
}

const LEVELS_FROM = 'the USER START/END records (the most users alive in each second)';

/** Gatling 3.13+: the binary log, read record by record (its schedule in a pass of its own). */
export const gatlingBinaryTool: ToolSpec = {
  name: 'gatling',
  identity: 'gatling:binary',
  loadModel: 'closed',
  parameter: 'users',
  levelsFrom: LEVELS_FROM,
  format: { kind: 'rows', read: readGatlingBinaryRows, follow: followGatlingBinary, scheduleBucketMs: GATLING_SCHEDULE_BUCKET_MS },
};

export const gatlingTool: ToolSpec = {
  name: 'gatling',
  identity: 'gatling',
  loadModel: 'closed',
  parameter: 'users',
  levelsFrom: LEVELS_FROM,
  format: { kind: 'lines', open: () => fromText(gatlingParser()), scheduleNeedle: 'USER\t', scheduleBucketMs: GATLING_SCHEDULE_BUCKET_MS },
  // The binary log begins with its RUN record's header byte, 0; the text log with "RUN".
  sniff: (first) => (first[0] === 0 ? gatlingBinaryTool : gatlingTool),
};
