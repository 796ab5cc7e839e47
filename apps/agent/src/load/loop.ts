import type { Dispatcher } from 'undici';
import type { ServerTimingParser } from '@kneeboard/agent-sdk';
import type { InFlightGauge } from './in-flight-gauge.ts';
import type { Completion, TargetRequest } from './target-client.ts';

/** What both load loops need. */
export interface LoopOptions {
  dispatcher: Dispatcher;
  request: TargetRequest;
  parseTiming: ServerTimingParser;
  gauge: InFlightGauge;
  /** performance.now() of the first send, and the planned time after which nothing new is sent. */
  startAt: number;
  stopSendingAt: number;
  /** Every request that ends while the loop is not cancelled; `intendedAt` is when it was meant to leave. */
  onResult: (intendedAt: number, c: Completion) => void;
}

/** A running loop. */
export interface LoopHandle<T> {
  /** Stop sending now (Ctrl-C, or the drain after the step took too long); requests in flight may finish. */
  stopSending(): void;
  /** Forget the requests still in flight: their results are not reported. The caller then destroys the pool. */
  cancel(): void;
  /** Resolves when nothing is in flight any more (or after cancel()). */
  done: Promise<T>;
}
