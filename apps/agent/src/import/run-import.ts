import { setTimeout as sleep } from 'node:timers/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { createRecorder, KneeboardApi, type Recorder } from '@kneeboard/agent-sdk';
import { SweepError } from '../sweep/sweep-error.ts';
import { countBad, newFileReport, outOfBounds, type FileReport } from './file-report.ts';
import { firstPass } from './fingerprint.ts';
import { ImportConfig, fileLevels, requireLevelSource, type ImportInput } from './import-options.ts';
import { LevelSteps, type LevelReport } from './level-steps.ts';
import { readLines } from './line-reader.ts';
import { LoadSchedule } from './load-schedule.ts';
import { newParsed, type LineKind, type Parsed, type ToolSpec } from './records.ts';
import { chooseRun, IMPORT_KEY_TAG, importKey } from './run-identity.ts';

/** The same agent id every time: the API's duplicate check covers it, so a repeat must match. */
const IMPORT_AGENT_ID = 'kneeboard-import';
/** Requests read but not yet acknowledged, at most: reading pauses beyond, so memory stays flat. */
const MAX_UNACKED_EVENTS = 250_000;
/** Batches are cut only when full or at the end (never on a timer), so their contents — and ids — repeat. */
const NEVER = 2 ** 31 - 1;

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

/**
 * Imports a load tool's output files as a Kneeboard run. Each file is read twice, in constant
 * memory: once to hash it (its identity) and collect the tool's load schedule, once to stream its
 * requests through the SDK's recorder in deterministic batches. Throws SweepError for people.
 */
export async function runImport(tool: ToolSpec, input: ImportInput, reporter: ImportReporter = {}): Promise<ImportResult> {
  const parsed = ImportConfig.safeParse(input);
  if (!parsed.success) throw new SweepError('config', `invalid import options:\n${z.prettifyError(parsed.error)}`);
  const cfg = parsed.data;
  const missing = requireLevelSource(cfg, tool);
  if (missing !== null) throw new SweepError('config', missing);
  const levels = fileLevels(cfg);

  // First pass: identity, and the schedule where the tool writes one and no --level overrides it.
  const schedules: Array<LoadSchedule | null> = [];
  const reports: FileReport[] = [];
  for (const [i, path] of cfg.files.entries()) {
    const format = tool.format;
    const wantSchedule = levels[i] === null && format.kind === 'lines' && format.scheduleNeedle !== undefined;
    const schedule = wantSchedule ? new LoadSchedule() : null;
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

  const api = new KneeboardApi({ baseUrl: cfg.api });
  const runUrlOf = (id: string) => `${cfg.web.replace(/\/+$/, '')}/runs/${id}`;
  try {
    try {
      await api.health();
    } catch (err) {
      throw new SweepError('api-failed', `the Kneeboard API at ${cfg.api} is not reachable (${(err as Error).message})`, { cause: err });
    }
    const choice = await chooseRun(api, cfg, key);
    if (choice.kind === 'given' && (await api.runStatus(choice.runId)) === null) throw new SweepError('config', `the API has no run ${choice.runId} (--run)`);
    if (choice.kind === 'done') {
      reporter.runChosen?.({ runId: choice.runId, runUrl: runUrlOf(choice.runId), how: 'done' });
      return { runId: choice.runId, runUrl: runUrlOf(choice.runId), how: 'done', importKey: key, files: reports, levels: [], upload: { recorded: 0, uploaded: 0, batches: 0, duplicateBatches: 0, lostEvents: 0 } };
    }

    let lost: string | undefined;
    let batchSeq = 0;
    const recorder = await createRecorder({
      api,
      ...(choice.kind === 'new'
        ? {
            run: {
              ...cfg.run!,
              load_model: cfg.loadModel ?? tool.loadModel,
              parameter: cfg.parameter ?? tool.parameter,
              tags: { ...cfg.run!.tags, [IMPORT_KEY_TAG]: key, import_tool: tool.name, import_files: cfg.files.map((f) => basename(f)).join(',').slice(0, 500) },
            },
          }
        : { runId: choice.runId }),
      // The files are the durable copy: an import that fails is run again, and is stored once.
      spoolDir: null,
      agentId: IMPORT_AGENT_ID,
      flushIntervalMs: NEVER,
      maxBatchEvents: cfg.maxBatchEvents,
      newBatchId: () => `imp-${key.slice(0, 48)}-${batchSeq++}`,
      onWarning: (m) => reporter.warn?.(m),
      onLost: (err, l) => {
        lost ??= `the API refused ${l.events > 0 ? `a batch of ${l.events} events` : `a ${l.kind} call`}: ${(err as Error).message}`;
      },
    });
    const runUrl = runUrlOf(recorder.runId);
    reporter.runChosen?.({ runId: recorder.runId, runUrl, how: choice.kind });

    const steps = new LevelSteps(recorder, cfg.warmupMs);
    let failure: unknown;
    try {
      for (const [i, path] of cfg.files.entries()) {
        await importFile(tool, path, reports[i]!, levels[i]!, schedules[i]!, steps, recorder, () => lost, (bytesRead, events) =>
          reporter.progress?.({ file: path, fileIndex: i, files: cfg.files.length, bytesRead, bytes: reports[i]!.bytes, events }),
        );
      }
    } catch (err) {
      failure = err;
    }
    const levelReports = steps.close();
    // A run made here is closed here; one given with --run belongs to whoever made it.
    const report = choice.kind === 'given' ? await closeWithoutFinish(recorder, cfg.deliveryTimeoutMs) : await recorder.finish(failure === undefined && lost === undefined ? 'finished' : 'aborted', { timeoutMs: cfg.deliveryTimeoutMs });
    if (failure !== undefined) throw failure;
    if (lost !== undefined) throw new SweepError('api-failed', lost);
    if (report.spooledEvents > 0 || report.uploaded < report.recorded) {
      throw new SweepError('api-failed', `the API took ${report.uploaded} of ${report.recorded} requests within ${cfg.deliveryTimeoutMs / 1000} s; run the same import again to send the rest (what arrived is stored once)`);
    }
    return {
      runId: recorder.runId,
      runUrl,
      how: choice.kind,
      importKey: key,
      files: reports,
      levels: levelReports,
      upload: { recorded: report.recorded, uploaded: report.uploaded, batches: report.batches, duplicateBatches: report.duplicateBatches, lostEvents: report.lostEvents },
    };
  } finally {
    await api.close();
  }
}

/** Delivers everything without finishing a run this import did not create. */
async function closeWithoutFinish(recorder: Recorder, timeoutMs: number) {
  await Promise.race([recorder.flush(), sleep(timeoutMs)]);
  const s = recorder.stats();
  return { ...s, spooledEvents: s.recorded - s.uploaded - s.lostEvents };
}

async function importFile(
  tool: ToolSpec,
  path: string,
  report: FileReport,
  fileLevel: number | null,
  schedule: LoadSchedule | null,
  steps: LevelSteps,
  recorder: Recorder,
  lost: () => string | undefined,
  progress: (bytesRead: number, events: number) => void,
): Promise<void> {
  if (fileLevel === null && schedule !== null && schedule.isEmpty && tool.format.kind === 'lines') {
    throw new SweepError('config', `${path} holds no load samples (${tool.levelsFrom}): give --level`);
  }
  const p = newParsed();
  // Progress only for imports long enough to wonder about: the first line after a second.
  let lastProgress = Date.now();
  const take = (kind: LineKind, lineNumber: number, text: string): void => {
    report.lines += 1;
    if (kind === 'event') {
      const level = fileLevel ?? (Number.isNaN(p.level) ? (schedule?.at(p.tsMs - p.latencyMs) ?? Number.NaN) : p.level);
      const refused = outOfBounds(p, level);
      if (refused !== null) return countBad(report, lineNumber, refused, text);
      recorder.record({ level, tsMs: p.tsMs, latencyMs: p.latencyMs, status: p.status });
      steps.add(level, p.tsMs, p.latencyMs, p.status, schedule);
      report.events += 1;
    } else if (kind === 'bad') {
      countBad(report, lineNumber, p.reason, text);
    } else {
      report.skipped += 1;
    }
  };
  // Reading waits while the API is behind, so memory stays bounded whatever the file's size.
  const pace = async (bytesRead: number): Promise<void> => {
    const now = Date.now();
    if (now - lastProgress >= 1_000) {
      lastProgress = now;
      progress(bytesRead, report.events);
    }
    for (;;) {
      const why = lost();
      if (why !== undefined) throw new SweepError('api-failed', why);
      const s = recorder.stats();
      if (s.recorded - s.uploaded - s.lostEvents <= MAX_UNACKED_EVENTS) return;
      await sleep(2);
    }
  };

  const format = tool.format;
  if (format.kind === 'lines') {
    const parse = format.open();
    await readLines(path, {
      line: (text, n) => take(parse(text, p), n, text),
      unterminated: (text, n) => {
        const kind = parse(text, p);
        if (kind === 'bad') {
          report.truncated = true;
          p.reason = `cut off (no newline at the end): ${p.reason}`;
        }
        take(kind, n, text);
      },
      chunk: pace,
    });
  } else {
    await format.read(path, p, (kind, rowNumber) => take(kind, rowNumber, `row ${rowNumber}`), (fraction) => pace(Math.round(fraction * report.bytes)));
  }
}

export type { Parsed };
