export type SweepErrorKind =
  /** Options that cannot work; nothing was sent. */
  | 'config'
  | 'api-unreachable'
  | 'target-unreachable'
  /** The target answered, but with an error status: every request would be an error. */
  | 'target-rejected'
  /** The API failed during the run (after retries), or refused a request as invalid. */
  | 'api-failed'
  /** The --before-level command failed, or the target was not ready after it. */
  | 'before-level'
  /** The native engine could not start, crashed, or wrote something that is not its protocol. */
  | 'engine-failed';

/** A failure with a message meant for the person running the sweep. */
export class SweepError extends Error {
  constructor(
    readonly kind: SweepErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SweepError';
  }
}
