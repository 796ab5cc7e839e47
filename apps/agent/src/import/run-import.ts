import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { KneeboardApi } from '@kneeboard/agent-sdk';
import { SweepError } from '../sweep/sweep-error.ts';
import { CHUNK_BYTES, readByteLines } from './byte-lines.ts';
import { newFileReport, type FileReport } from './file-report.ts';
import { firstPass } from './fingerprint.ts';
import { ImportConfig, fileLevels, requireLevelSource, type ImportInput } from './import-options.ts';
import { ImportSink } from './import-sink.ts';
import { LevelSteps, type LevelReport } from './level-steps.ts';
import { LoadSchedule } from './load-schedule.ts';
import { newParsed, type Parsed, type ToolSpec } from './records.ts';
import { chooseRun, IMPORT_KEY_TAG, importKey } from './run-identity.ts';
import { Uploader, type UploadStats } from './uploader.ts';

/** The same agent id every time: the API's duplicate check covers it, so a repeat must match. */
export const IMPORT_AGENT_ID = 'kneeboard-import';

export interface ImportProgress {
  file: string;
  fileIndex: number;
  files: number;
  bytesRead: number;
  bytes: number;
  events: number;
}

export interface ImportReporter {
  progress?(p: ImportProgress): void;
  warn?(message: string): void;
  runChosen?(run: { runId: string; runUrl: string; how: 'new' | 'resume' | 'given' | 'done' }): void;
}

export interface ImportResult {
  runId: string;
  runUrl: string;
  /** new: a run was made; resume: an unfinished earlier import of the same files; given: --run; done: imported before, nothing sent. */
  how: 'new' | 'resume' | 'given' | 'done';
  importKey: string;
  files: FileReport[];
  levels: LevelReport[];
  upload: { recorded: number; uploaded: number; batches: number; duplicateBatches: number; lostEvents: number };
}

export function checkConfig(tool: ToolSpec, input: ImportInput): ImportConfig {
  const parsed = ImportConfig.safeParse(input);
  if (!parsed.success) throw new SweepError('config', `invalid import options:\n${z.prettifyError(parsed.error)}`);
  const missing = requireLevelSource(parsed.data, tool);
  if (missing !== null) throw new SweepError('config', missing);
  return parsed.data;
}

/** The tags and settings of a run an import creates. */
export function newRunBody(tool: ToolSpec, cfg: ImportConfig, key: string) {
  return {
    ...cfg.run!,
    load_model: cfg.loadModel ?? tool.loadModel,
    parameter: cfg.parameter ?? tool.parameter,
    tags: { ...cfg.run!.tags, [IMPORT_KEY_TAG]: key, import_tool: tool.name, import_files: cfg.files.map((f) => basename(f)).join(',').slice(0, 500) },
  };
}

export const runUrlOf = (cfg: ImportConfig, id: string): string => `${cfg.web.replace(/\/+$/, '')}/runs/${id}`;

export async function checkApi(api: KneeboardApi, cfg: ImportConfig): Promise<void> {
  try {
    await api.health();
  } catch (err) {
    throw new SweepError('api-failed', `the Kneeboard API at ${cfg.api} is not reachable (${(err as Error).message})`, { cause: err });
  }
}

/** After the last batch: the upload must be complete, or the import failed (and can be run again). */
export function checkDelivered(up: Uploader, delivered: boolean, timeoutMs: number): UploadStats {
  if (up.failure !== undefined) throw new SweepError('api-failed', up.failure.message);
  const s = up.stats;
  if (!delivered || s.uploaded < s.recorded) {
    throw new SweepError('api-failed', `the API took ${s.uploaded} of ${s.recorded} requests within ${timeoutMs / 1000} s; run the same import again to send the rest (what arrived is stored once)`);
  }
  return { ...s };
}

/**
 * Imports a load tool's output files as a Kneeboard run. Each file is read twice, in constant
 * memory: once to hash it (its identity) and collect the tool's load schedule, once to parse its
 * requests straight into column batches, posted as Arrow several at a time. Batches are cut only
 * when full (never on a timer), so their contents — and their ids — repeat: a repeated import is
 * stored once. Throws SweepError for people.
 */
export async function runImport(anyTool: ToolSpec, input: ImportInput, reporter: ImportReporter = {}): Promise<ImportResult> {
  const cfg = checkConfig(anyTool, input);
  const tool = await sniffFormat(anyTool, cfg.files);
  const levels = fileLevels(cfg);

  // First pass: identity, and the schedule where the tool writes one and no --level overrides it.
  const schedules: Array<LoadSchedule | null> = [];
  const reports: FileReport[] = [];
  const format = tool.format;
  for (const [i, path] of cfg.files.entries()) {
    const schedule = levels[i] === null && format.kind === 'lines' && format.scheduleNeedle !== undefined ? new LoadSchedule() : null;
    let pass;
    try {
      pass = await firstPass(path, schedule && format.kind === 'lines' ? { needle: format.scheduleNeedle!, parser: format.open(), into: schedule, bucketMs: format.scheduleBucketMs } : undefined);
    } catch (err) {
      throw new SweepError('config', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
    }
    schedules.push(schedule);
    reports.push(newFileReport(path, pass.sha256, pass.bytes));
  }
  const key = importKey(tool.identity, cfg, reports.map((r) => r.sha256));

  const api = new KneeboardApi({ baseUrl: cfg.api, token: cfg.token });
  try {
    await checkApi(api, cfg);
    const choice = await chooseRun(api, cfg, key);
    if (choice.kind === 'given' && (await api.runStatus(choice.runId)) === null) throw new SweepError('config', `the API has no run ${choice.runId} (--run)`);
    if (choice.kind === 'done') {
      reporter.runChosen?.({ runId: choice.runId, runUrl: runUrlOf(cfg, choice.runId), how: 'done' });
      return { runId: choice.runId, runUrl: runUrlOf(cfg, choice.runId), how: 'done', importKey: key, files: reports, levels: [], upload: { recorded: 0, uploaded: 0, batches: 0, duplicateBatches: 0, lostEvents: 0 } };
    }
    const runId = choice.kind === 'new' ? await api.createRun(newRunBody(tool, cfg, key)) : choice.runId;
    const runUrl = runUrlOf(cfg, runId);
    reporter.runChosen?.({ runId, runUrl, how: choice.kind });

    const up = new Uploader({ api, runId, agentId: IMPORT_AGENT_ID, batchEvents: cfg.maxBatchEvents, batchId: (seq) => `imp-${key.slice(0, 48)}-${seq}`, inFlight: cfg.inFlight });
    const steps = new LevelSteps((w) => up.postStep(w), cfg.warmupMs);
    let failure: unknown;
    try {
      for (const [i, path] of cfg.files.entries()) {
        await importFile(tool, path, reports[i]!, new ImportSink(reports[i]!, up, steps, levels[i]!, schedules[i]!), schedules[i]!, levels[i]!, up, (bytesRead, events) =>
          reporter.progress?.({ file: path, fileIndex: i, files: cfg.files.length, bytesRead, bytes: reports[i]!.bytes, events }),
        );
      }
    } catch (err) {
      failure = err;
    }
    const levelReports = steps.close();
    const delivered = await up.drain(cfg.deliveryTimeoutMs);
    // A run made here is closed here; one given with --run belongs to whoever made it.
    const ok = failure === undefined && up.failure === undefined && delivered;
    if (choice.kind !== 'given') await finishRun(api, runId, ok ? 'finished' : 'aborted', reporter, fileSpan(levelReports, ok));
    if (failure !== undefined) throw failure;
    const upload = checkDelivered(up, delivered, cfg.deliveryTimeoutMs);
    return { runId, runUrl, how: choice.kind, importKey: key, files: reports, levels: levelReports, upload };
  } finally {
    await api.close();
  }
}

/** The format every file is in, for tools with several (Gatling's text and binary logs); one import is one format. */
export async function sniffFormat(tool: ToolSpec, files: string[]): Promise<ToolSpec> {
  if (tool.sniff === undefined) return tool;
  const specs = [];
  for (const path of files) {
    let first: Buffer;
    try {
      const fh = await open(path, 'r');
      try {
        first = Buffer.alloc(16);
        first = first.subarray(0, (await fh.read(first, 0, 16, 0)).bytesRead);
      } finally {
        await fh.close();
      }
    } catch (err) {
      throw new SweepError('config', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
    }
    specs.push(tool.sniff(first));
  }
  if (new Set(specs.map((s) => s.identity)).size > 1) throw new SweepError('config', `these ${tool.name} files are in different formats (${[...new Set(specs.map((s) => s.identity))].join(', ')}): import them apart`);
  return specs[0]!;
}

/**
 * The run's start and end as the file tells them — its first request's send and last completion
 * (the step windows' span) — not the import's own clock. An aborted import gives only the start:
 * its end stays the API's time, so batches still on their way meet the usual late-data grace.
 */
export function fileSpan(levels: LevelReport[], complete: boolean): { started_at: number; finished_at?: number } | null {
  if (levels.length === 0) return null;
  const started_at = Math.min(...levels.map((l) => l.started_at));
  return complete ? { started_at, finished_at: Math.max(...levels.map((l) => l.ended_at)) } : { started_at };
}

export async function finishRun(
  api: KneeboardApi,
  runId: string,
  status: 'finished' | 'aborted',
  reporter: ImportReporter,
  span: { started_at: number; finished_at?: number } | null = null,
): Promise<void> {
  try {
    await api.finishRun(runId, status, span);
  } catch (err) {
    reporter.warn?.(`could not mark the run ${status}: ${(err as Error).message}`);
  }
}

/** Reading waits while batches are on their way, so memory stays bounded whatever the file's size. */
export function pacer(up: Uploader, progress: (bytesRead: number, events: number) => void, events: () => number) {
  // Progress only for imports long enough to wonder about: the first chunk after a second.
  let lastProgress = Date.now();
  return async (bytesRead: number): Promise<void> => {
    const now = Date.now();
    if (now - lastProgress >= 1_000) {
      lastProgress = now;
      progress(bytesRead, events());
    }
    if (up.failure !== undefined) throw new SweepError('api-failed', up.failure.message);
    await up.ready();
  };
}

async function importFile(
  tool: ToolSpec,
  path: string,
  report: FileReport,
  sink: ImportSink,
  schedule: LoadSchedule | null,
  fileLevel: number | null,
  up: Uploader,
  progress: (bytesRead: number, events: number) => void,
): Promise<void> {
  if (fileLevel === null && schedule !== null && schedule.isEmpty && tool.format.kind === 'lines') {
    throw new SweepError('config', `${path} holds no load samples (${tool.levelsFrom}): give --level`);
  }
  const p = newParsed();
  const pace = pacer(up, progress, () => report.events);
  const format = tool.format;
  if (format.kind === 'lines') {
    const parse = format.open();
    await readByteLines(createReadStream(path, { highWaterMark: CHUNK_BYTES }), {
      line: (buf, start, end, n) => sink.take(parse(buf, start, end, p), p, n, () => lineText(buf, start, end)),
      unterminated: (buf, start, end, n) => {
        const kind = parse(buf, start, end, p);
        if (kind === 'bad') cutOff(report, p);
        sink.take(kind, p, n, () => lineText(buf, start, end));
      },
      chunk: pace,
    });
    const held = parse.end?.(p);
    if (held !== undefined && held !== 'skip') sink.take(held, p, report.lines + 1, () => 'the record left open at the end of the file');
  } else {
    await format.read(path, p, (kind, rowNumber) => sink.take(kind, p, rowNumber, () => `row ${rowNumber}`), (fraction) => pace(Math.round(fraction * report.bytes)));
  }
}

export function cutOff(report: FileReport, p: Parsed): void {
  report.truncated = true;
  p.reason = `cut off (no newline at the end): ${p.reason}`;
}

/** A bad line as a person reads it (UTF-8), only ever decoded for the report. */
export const lineText = (buf: Uint8Array, start: number, end: number): string => Buffer.from(buf.buffer, buf.byteOffset + start, Math.min(end - start, 400)).toString('utf8');

export type { Parsed };
