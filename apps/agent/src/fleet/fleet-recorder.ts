import type { Recorder, StepHandle, StepHealthInput } from '@kneeboard/agent-sdk';

/** What one agent's part in a step looked like, on its own clock. */
export interface StepCapture {
  startedAt: number | null;
  endedAt: number | null;
  health: StepHealthInput | null;
  events: number;
}

/**
 * A recorder for an agent that shares a run: events go out with their times moved onto the API's
 * clock (`toApiMs` is added), so every agent's requests sit on one time line; step windows are not
 * posted (the API posts each step's window once, from its barrier) but kept for the agent's report.
 */
export class FleetRecorder implements Recorder {
  private capture: StepCapture = { startedAt: null, endedAt: null, health: null, events: 0 };

  constructor(
    private readonly inner: Recorder,
    private readonly toApiMs: number,
  ) {}

  get runId(): string {
    return this.inner.runId;
  }

  /** Starts a fresh capture for the next step and returns it. */
  beginCapture(): StepCapture {
    this.capture = { startedAt: null, endedAt: null, health: null, events: 0 };
    return this.capture;
  }

  step(level: number): StepHandle {
    const capture = this.capture;
    return {
      level,
      start: (at = {}) => {
        const startedAt = at.startedAt ?? Date.now();
        capture.startedAt = startedAt;
        return { startedAt, measureFrom: at.measureFrom ?? startedAt };
      },
      end: async ({ endedAt, health } = {}) => {
        capture.endedAt = endedAt ?? Date.now();
        capture.health = health ?? null;
        return 'delivered';
      },
    };
  }

  record(event: Parameters<Recorder['record']>[0]): void {
    this.capture.events += 1;
    this.inner.record({ ...event, tsMs: (event.tsMs ?? Date.now()) + this.toApiMs });
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  finish(...args: Parameters<Recorder['finish']>): ReturnType<Recorder['finish']> {
    return this.inner.finish(...args);
  }

  stats(): ReturnType<Recorder['stats']> {
    return this.inner.stats();
  }
}
