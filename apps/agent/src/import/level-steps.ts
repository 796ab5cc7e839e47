import type { Recorder } from '@kneeboard/agent-sdk';

export interface LevelReport {
  level: number;
  requests: number;
  errors: number;
  started_at: number;
  measure_from: number;
  ended_at: number;
}

interface Step {
  requests: number;
  errors: number;
  /** Earliest send (completion − latency) and latest completion of the level's requests. */
  firstSend: number;
  lastDone: number;
  /** When the tool's schedule says the level began, if it says. */
  scheduledStart: number | undefined;
}

/**
 * The step windows of an import. A step's window is known only once all its requests are read, but
 * the API wants a step before its events: so a level's window is posted open when its first request
 * is seen, and final (spanning every one of its requests, so the stored count equals the tool's)
 * when the files are done — the latest post of a level wins.
 */
export class LevelSteps {
  private readonly steps = new Map<number, Step>();

  constructor(
    private readonly recorder: Recorder,
    private readonly warmupMs: number,
  ) {}

  /** Counts one request of `level`; opens the level's window on its first. */
  add(level: number, tsMs: number, latencyMs: number, status: number, schedule: { firstAt(level: number): number | undefined } | null): void {
    let s = this.steps.get(level);
    const sent = tsMs - latencyMs;
    if (s === undefined) {
      const scheduledStart = schedule?.firstAt(level);
      s = { requests: 0, errors: 0, firstSend: sent, lastDone: tsMs, scheduledStart };
      this.steps.set(level, s);
      const startedAt = Math.min(sent, scheduledStart ?? sent);
      this.recorder.step(level).start({ startedAt, measureFrom: startedAt + this.warmupMs });
    }
    s.requests += 1;
    if (status < 1 || status > 399) s.errors += 1;
    if (sent < s.firstSend) s.firstSend = sent;
    if (tsMs > s.lastDone) s.lastDone = tsMs;
  }

  /** Queues every level's final window (levels in order of first appearance) and returns them. */
  close(): LevelReport[] {
    const reports: LevelReport[] = [];
    for (const [level, s] of this.steps) {
      const started_at = Math.min(s.firstSend, s.scheduledStart ?? s.firstSend);
      const measure_from = started_at + this.warmupMs;
      const ended_at = Math.max(s.lastDone, measure_from);
      const handle = this.recorder.step(level);
      handle.start({ startedAt: started_at, measureFrom: measure_from });
      // Delivery is the recorder's: finish() waits for it, bounded by the delivery timeout.
      void handle.end({ endedAt: ended_at });
      reports.push({ level, requests: s.requests, errors: s.errors, started_at, measure_from, ended_at });
    }
    return reports;
  }
}
