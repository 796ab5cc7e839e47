import type { SweepReporter } from '../sweep/reporter.ts';
import { formatQps, formatSeconds } from '@kneeboard/contracts/figures';
import { columnsFor, rowNotes, tableHeader, tableRow } from './format.ts';

export interface TerminalReporterOptions {
  /** Where the run URL and the table go (stderr when stdout is kept for --json). */
  out: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where warnings go. */
  err: NodeJS.WritableStream;
  /** Which table: closed or open loop, and what the level column counts. */
  loadModel: 'closed' | 'open';
  parameter: string;
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
export function createTerminalReporter({ out, err, loadModel, parameter }: TerminalReporterOptions): TerminalReporter {
  const columns = columnsFor(loadModel, parameter);
  const live = out.isTTY === true;
  let progressShown = false;
  let stepLabel = '';
  let preparedOnce = false;
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
      say(tableHeader(columns));
    },
    levelPreparing({ level, command }) {
      // The whole command once; after that the level is enough to follow along inside the table.
      say(preparedOnce ? `  ↳ ${parameter} ${level}: --before-level` : `  ↳ ${parameter} ${level}: running ${command.replaceAll('{level}', String(level))}`);
      preparedOnce = true;
    },
    stepStarted({ level, index, count }) {
      stepLabel = `${parameter} ${level} (${index + 1}/${count})`;
    },
    stepFinished(summary) {
      say(tableRow(columns, summary));
      for (const note of rowNotes(summary)) say(`  ↳ ${note}`);
    },
    warn(message) {
      clearProgress();
      err.write(`warning: ${message}\n`);
    },
  };
  if (live) {
    reporter.progress = ({ phase, elapsedMs, totalMs, qps, inFlight }) => {
      out.write(
        `${CLEAR_LINE}  ${stepLabel} · ${phase} · ${formatSeconds(elapsedMs / 1000)} s / ${formatSeconds(totalMs / 1000)} s · ${formatQps(qps)} req/s · ${inFlight} in flight`,
      );
      progressShown = true;
    };
  }
  return reporter;
}
