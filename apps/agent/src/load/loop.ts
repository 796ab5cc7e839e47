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
  /** `--requests`: each send takes the request `mix.pick()` says instead of `request`. */
  mix?: LoopMix;
  /** Every request that ends while the loop is not cancelled; `intendedAt` is when it was meant to leave, `index` its place in the mix (0 without one). */
  onResult: (intendedAt: number, c: Completion, index: number) => void;
}

/** A request mix: the requests, and which one the next send takes (by weight). */
export interface LoopMix {
  requests: readonly TargetRequest[];
  pick: () => number;
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
