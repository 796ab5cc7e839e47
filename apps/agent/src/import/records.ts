/**
 * What a tool's parser gives the importer: one request (completion time, latency, status, and the
 * load level when the tool writes it on the request itself), or a sample of the tool's load
 * schedule (k6's `vus`, Gatling's active users). Parsers fill a reused object instead of
 * allocating one per line: imports run at hundreds of thousands of lines per second.
 */
export interface Parsed {
  /** Completion time, epoch ms. For 'level': when the load was sampled. */
  tsMs: number;
  latencyMs: number;
  /** HTTP status; 0 for a request that failed without one (transport error, Gatling KO). */
  status: number;
  /** The load when this request was made (JMeter's allThreads), or the sampled load; NaN when unknown. */
  level: number;
  /**
   * The server's own compute and queue time from the response's Server-Timing header, where the
   * tool recorded response headers (vegeta, JMeter's XML with response headers); NaN when unknown.
   * A parser that reads headers sets both on every request; the others never touch them.
   */
  computeMs: number;
  queueMs: number;
  /**
   * The request's name as the tool wrote it (k6's name tag, JMeter's label, Gatling's request
   * name…, through requestName), '' when it has none. A parser that reads names sets it on every
   * request; the others never touch it.
   */
  name: string;
  /** Why a line was refused, for the report. */
  reason: string;
}

/** `event`: a request; `level`: a load sample; `skip`: a known line that is not a request (other k6 metrics, a header); `bad`: garbage. */
export type LineKind = 'event' | 'level' | 'skip' | 'bad';

/**
 * For a parser that tells a record only once it has read past it (JMeter's XML: a sample's response
 * headers come after its start tag, so it is told at its closing tag): the record it still holds
 * when the file ends — one cut off before its closing tag — or 'skip'.
 */
export interface HeldAtEnd {
  end?(out: Parsed): LineKind;
}

/** Parses one line, without its newline. Each file gets its own (CSV parsers learn the header). */
export type LineParser = ((line: string, out: Parsed) => LineKind) & HeldAtEnd;

/** Parses one line given as bytes [start, end) of `buf`, without its newline: no string per line. */
export type ByteLineParser = ((buf: Uint8Array, start: number, end: number, out: Parsed) => LineKind) & HeldAtEnd;

/**
 * A text parser fed from bytes. Latin-1 decoding is a plain copy, and every field the parsers
 * read is ASCII; free text elsewhere on the line (labels, URLs) is passed over, never interpreted.
 */
export function fromText(parse: LineParser): ByteLineParser {
  const byLine: ByteLineParser = (buf, start, end, out) => parse(Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('latin1'), out);
  byLine.end = (out) => parse.end?.(out) ?? 'skip';
  return byLine;
}

export const newParsed = (): Parsed => ({ tsMs: 0, latencyMs: 0, status: 0, level: Number.NaN, computeMs: Number.NaN, queueMs: Number.NaN, name: '', reason: '' });

/** How a tool's file is read. */
export type ToolFormat =
  | {
      kind: 'lines';
      /** A fresh parser per file. */
      open(): ByteLineParser;
      /**
       * Lines holding the tool's load schedule contain this text: the first pass (which also hashes
       * the file) finds them without splitting every line.
       */
      scheduleNeedle?: string;
      /**
       * Schedules that flicker (Gatling's closed model ends one user and starts the next, so the
       * count dips for an instant) are read as the most load in each bucket of this many ms — what
       * the tool's own active-users chart shows per second.
       */
      scheduleBucketMs?: number;
    }
  | {
      kind: 'rows';
      /**
       * Calls `onRow` for each row (filled into `out`), and awaits `pause` with the fraction done
       * every few thousand rows: the importer's chance to report progress and wait for the API.
       */
      read(path: string, out: Parsed, onRow: (kind: LineKind, rowNumber: number) => void, pause: (fractionDone: number) => Promise<void>): Promise<void>;
      /**
       * `--follow`: the rows of a file still being written, as its bytes arrive; the load schedule
       * through `schedule` as it changes (rows then carry a NaN level). Absent where the tool
       * writes its file whole at the end (oha's database): there is nothing to follow.
       */
      follow?(chunks: AsyncIterable<Buffer>, path: string, out: Parsed, sink: { row(kind: LineKind, rowNumber: number): void; schedule(at: number, level: number): void }): Promise<void>;
      /** As for lines: the schedule read as the most load in each bucket of this many ms. */
      scheduleBucketMs?: number;
    };

export interface ToolSpec {
  name: string;
  /** The tool and every choice that changes what is read from its files (part of the import's identity). */
  identity: string;
  /** Closed (users, VUs, threads) or open (an arrival rate) loop, and the name of its knob. */
  loadModel: 'closed' | 'open';
  parameter: string;
  format: ToolFormat;
  /** Where a level comes from when `--level` is not given, or null: then `--level` is required. */
  levelsFrom: string | null;
  /** For tools with more than one file format: the spec for a file that begins with these bytes. */
  sniff?(firstBytes: Buffer): ToolSpec;
}
