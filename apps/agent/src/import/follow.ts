import { randomUUID } from 'node:crypto';
import { KneeboardApi } from '@kneeboard/agent-sdk';
import { SweepError } from '../sweep/sweep-error.ts';
import { readByteLines } from './byte-lines.ts';
import { newFileReport } from './file-report.ts';
import { followSource } from './follow-source.ts';
import { fileLevels, type ImportInput } from './import-options.ts';
import { ImportSink } from './import-sink.ts';
import { LevelSteps } from './level-steps.ts';
import { LiveLevels } from './live-levels.ts';
import { newParsed, type LineKind, type ToolSpec } from './records.ts';
import {
  checkApi,
  checkConfig,
  checkDelivered,
  cutOff,
  fileSpan,
  finishRun,
  IMPORT_AGENT_ID,
  lineText,
  newRunBody,
  pacer,
  runUrlOf,
  type ImportReporter,
  type ImportResult,
} from './run-import.ts';
import { Uploader } from './uploader.ts';

/**
 * `--follow`: one stream (a file still being written, or stdin) imported as it is written, so the
 * curve draws while the test runs. The run is created at once and stays `running`; each new level
 * opens a step (and closes the one before); a partial batch leaves every `followFlushMs`; when the
 * stream ends (EOF, the file stops growing, or `signal` — SIGINT) the final windows are posted and
 * the run is finished. A stream has no identity before it ends, so it always makes a new run (or
 * goes into --run), with batch ids of that run: nothing to deduplicate against.
 */
export async function runFollow(tool: ToolSpec, input: ImportInput, reporter: ImportReporter = {}, signal?: AbortSignal): Promise<ImportResult> {
  if (tool.format.kind === 'rows' && tool.format.follow === undefined) throw cannotFollow(tool);
  const cfg = checkConfig(tool, { ...input, follow: true });
  const path = cfg.files[0]!;
  const fileLevel = fileLevels(cfg)[0]!;
  const key = `live-${randomUUID()}`;
  const api = new KneeboardApi({ baseUrl: cfg.api, token: cfg.token });
  try {
    await checkApi(api, cfg);
    if (cfg.runId !== undefined && (await api.runStatus(cfg.runId)) === null) throw new SweepError('config', `the API has no run ${cfg.runId} (--run)`);
    const runId = cfg.runId ?? (await api.createRun(newRunBody(tool, cfg, key)));
    const runUrl = runUrlOf(cfg, runId);
    reporter.runChosen?.({ runId, runUrl, how: cfg.runId === undefined ? 'new' : 'given' });

    // A tool with several formats is told apart by the stream's first bytes (the file may not exist yet).
    const { spec, chunks } = await sniffStream(tool, followSource(path, cfg.followIdleMs, signal));
    const format = spec.format;
    if (format.kind === 'rows' && format.follow === undefined) throw cannotFollow(spec);
    const report = newFileReport(path, '', 0);
    const up = new Uploader({ api, runId, agentId: IMPORT_AGENT_ID, batchEvents: cfg.maxBatchEvents, batchId: (seq) => `live-${runId}-${seq}`, inFlight: cfg.inFlight });
    const steps = new LevelSteps((w) => up.postStep(w), cfg.warmupMs, true);
    const fromSchedule = fileLevel === null && (format.kind === 'rows' || format.scheduleNeedle !== undefined);
    const live = fromSchedule ? new LiveLevels(format.scheduleBucketMs, (level, r) => sink.request(level, { ...p, ...r, level, reason: '' }, r.lineNumber, () => `line ${r.lineNumber}`)) : null;
    const sink = new ImportSink(report, up, steps, fileLevel, live === null ? null : live.schedule);
    const p = newParsed();
    const row = (kind: LineKind, n: number, text: () => string) => {
      if (live !== null && kind === 'level') live.sample(p.tsMs, p.level);
      if (live !== null && kind === 'event' && Number.isNaN(p.level)) {
        report.lines += 1;
        live.request({ tsMs: p.tsMs, latencyMs: p.latencyMs, status: p.status, computeMs: p.computeMs, queueMs: p.queueMs, lineNumber: n });
      } else {
        sink.take(kind, p, n, text);
      }
    };
    const pace = pacer(up, (bytesRead, events) => reporter.progress?.({ file: path, fileIndex: 0, files: 1, bytesRead, bytes: bytesRead, events }), () => report.events);
    const flusher = setInterval(() => up.cut(), cfg.followFlushMs);
    let failure: unknown;
    const progress = (bytesRead: number) => {
      report.bytes = bytesRead;
      return pace(bytesRead);
    };
    try {
      if (format.kind === 'lines') {
        const parse = format.open();
        const take = (buf: Buffer, start: number, end: number, n: number, last: boolean) => {
          const kind = parse(buf, start, end, p);
          if (kind === 'bad' && last) cutOff(report, p);
          row(kind, n, () => lineText(buf, start, end));
        };
        await readByteLines(chunks, {
          line: (buf, start, end, n) => take(buf, start, end, n, false),
          unterminated: (buf, start, end, n) => take(buf, start, end, n, true),
          chunk: progress,
        });
        const held = parse.end?.(p);
        if (held !== undefined && held !== 'skip') row(held, report.lines + 1, () => 'the record left open at the end of the stream');
      } else {
        await format.follow!(counted(chunks, progress), path, p, {
          row: (kind, n) => row(kind, n, () => `record ${n}`),
          schedule: (at, level) => live?.sample(at, level),
        });
      }
      live?.end();
    } catch (err) {
      failure = err instanceof SweepError ? err : new SweepError('config', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
    } finally {
      clearInterval(flusher);
    }
    const levels = steps.close();
    const delivered = await up.drain(cfg.deliveryTimeoutMs);
    const ok = failure === undefined && up.failure === undefined && delivered;
    if (cfg.runId === undefined) await finishRun(api, runId, ok ? 'finished' : 'aborted', reporter, fileSpan(levels, ok));
    if (failure !== undefined) throw failure;
    const upload = checkDelivered(up, delivered, cfg.deliveryTimeoutMs);
    return { runId, runUrl, how: cfg.runId === undefined ? 'new' : 'given', importKey: key, files: [report], levels, upload };
  } finally {
    await api.close();
  }
}

const cannotFollow = (tool: ToolSpec) => new SweepError('config', `${tool.name} writes its output whole when the test ends (a database in one transaction): there is nothing to follow; import the file afterwards`);

/** The stream's first bytes pick the format of a tool that has several; the stream is handed on whole. */
async function sniffStream(tool: ToolSpec, source: AsyncIterable<Buffer>): Promise<{ spec: ToolSpec; chunks: AsyncIterable<Buffer> }> {
  if (tool.sniff === undefined) return { spec: tool, chunks: source };
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  const head = first.done ? Buffer.alloc(0) : first.value;
  async function* whole(): AsyncGenerator<Buffer> {
    if (!first.done) yield head;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  }
  return { spec: tool.sniff(head), chunks: whole() };
}

/** Chunks passed on as they are, with the bytes read so far reported (and awaited: the pacing of uploads). */
async function* counted(chunks: AsyncIterable<Buffer>, progress: (bytesRead: number) => void | Promise<void>): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of chunks) {
    yield chunk;
    bytes += chunk.length;
    await progress(bytes);
  }
}
