import type { SweepReporter } from '../sweep/reporter.ts';
import { formatQps, rowNotes, tableHeader, tableRow } from './format.ts';

export interface TerminalReporterOptions {
  /** Where the run URL and the table go (stderr when stdout is kept for --json). */
  out: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where warnings go. */
  err: NodeJS.WritableStream;
}

export interface TerminalReporter extends SweepReporter {
  /** A line from the CLI itself, printed without disturbing the progress line. */
  say(line: string): void;
}

const CLEAR_LINE = '\r\x1b[2K';

/**
 * The live view: the run URL, then one table row per level as it finishes. On a terminal a single
 * progress line is redrawn during each step; elsewhere (a pipe, a CI log) there is none, so logs
 * hold only the table.
 */
export function createTerminalReporter({ out, err }: TerminalReporterOptions): TerminalReporter {
  const live = out.isTTY === true;
  let progressShown = false;
  let stepLabel = '';
  const clearProgress = () => {
    if (progressShown) out.write(CLEAR_LINE);
    progressShown = false;
  };
  const say = (line: string) => {
    clearProgress();
    out.write(`${line}\n`);
  };

  const reporter: TerminalReporter = {
    say,
    runCreated({ runUrl }) {
      say(`run ${runUrl}\n`);
      say(tableHeader());
    },
    stepStarted({ level, index, count }) {
      stepLabel = `level ${level} (${index + 1}/${count})`;
    },
    stepFinished(summary) {
      say(tableRow(summary));
      for (const note of rowNotes(summary)) say(`  ↳ ${note}`);
    },
    warn(message) {
      clearProgress();
      err.write(`warning: ${message}\n`);
    },
  };
  if (live) {
    reporter.progress = ({ phase, elapsedMs, totalMs, qps }) => {
      out.write(`${CLEAR_LINE}  ${stepLabel} · ${phase} · ${(elapsedMs / 1000).toFixed(1)} s / ${(totalMs / 1000).toFixed(1)} s · ${formatQps(qps)} req/s`);
      progressShown = true;
    };
  }
  return reporter;
}
