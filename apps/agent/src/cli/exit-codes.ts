import { SweepError } from '../sweep/sweep-error.ts';

/** 2 = the command line was wrong; 1 = something failed; 130 = stopped with Ctrl-C (128 + SIGINT). */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/**
 * A command's expected failure (a SweepError) is printed for the user with the exit code its kind
 * calls for: 2 for a wrong command line, 1 otherwise. Anything else is a bug: rethrown, with its stack.
 */
export function exitWithSweepError(err: unknown): void {
  if (!(err instanceof SweepError)) throw err;
  process.stderr.write(`error: ${err.message}\n`);
  process.exitCode = err.kind === 'config' ? EXIT.usage : EXIT.failed;
}
