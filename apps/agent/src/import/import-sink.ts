import { countBad, outOfBounds, type FileReport } from './file-report.ts';
import type { LevelSteps } from './level-steps.ts';
import type { LineKind, Parsed } from './records.ts';
import type { Uploader } from './uploader.ts';

/** Where a request's level comes from when the request does not carry one. */
export interface LevelSource {
  /** The level for a request sent at `sentMs`, NaN when none is known. */
  at(sentMs: number): number;
  firstAt(level: number): number | undefined;
}

/**
 * What happens to each parsed line: a request is checked against the API's bounds, counted into
 * its level's step and added to the upload columns; garbage is counted with a few examples; the
 * rest is counted as skipped. One per file.
 */
export class ImportSink {
  constructor(
    private readonly report: FileReport,
    private readonly uploader: Uploader,
    private readonly steps: LevelSteps,
    /** --level for this file, or null. */
    private readonly fileLevel: number | null,
    private readonly schedule: LevelSource | null,
  ) {}

  /** `text` gives the line for the report, decoded only when it is bad. */
  take(kind: LineKind, p: Parsed, lineNumber: number, text: () => string): void {
    this.report.lines += 1;
    if (kind === 'event') {
      const level = this.fileLevel ?? (Number.isNaN(p.level) ? (this.schedule?.at(p.tsMs - p.latencyMs) ?? Number.NaN) : p.level);
      this.request(level, p, lineNumber, text);
    } else if (kind === 'bad') {
      countBad(this.report, lineNumber, p.reason, text());
    } else {
      this.report.skipped += 1;
    }
  }

  /** A request whose level is known (a live stream decides levels a little later than it reads lines). */
  request(level: number, p: Parsed, lineNumber: number, text: () => string): void {
    const refused = outOfBounds(p, level);
    if (refused !== null) return countBad(this.report, lineNumber, refused, text());
    // The step first: opening a level's window cuts the batch before it, so the API never gets a request before its level's step.
    this.steps.add(level, p.tsMs, p.latencyMs, p.status, this.schedule);
    this.uploader.add(level, p.tsMs, p.latencyMs, p.status, p.computeMs, p.queueMs, p.name);
    this.report.events += 1;
  }
}
