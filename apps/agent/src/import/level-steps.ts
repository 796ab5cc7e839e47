import { isSuccessStatus, type StepWindowInput } from '@kneeboard/contracts';

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
  private current: number | undefined;

  /** `live`: a stream still being written; a level's window is closed as soon as the load moves on. */
  constructor(
    private readonly post: (window: StepWindowInput) => void,
    private readonly warmupMs: number,
    private readonly live = false,
  ) {}

  /** Counts one request of `level`; opens the level's window on its first. */
  add(level: number, tsMs: number, latencyMs: number, status: number, schedule: { firstAt(level: number): number | undefined } | null): void {
    let s = this.steps.get(level);
    const sent = tsMs - latencyMs;
    if (s === undefined) {
      // Live, a new level means the load moved on: the one left behind is shown done. (Its requests
      // still in flight, and a level the load returns to, are covered by the final windows of close().)
      const left = this.current === undefined ? undefined : this.steps.get(this.current);
      if (this.live && left !== undefined) this.post(this.window(this.current!, left, false));
      this.current = level;
      const scheduledStart = schedule?.firstAt(level);
      s = { requests: 0, errors: 0, firstSend: sent, lastDone: tsMs, scheduledStart };
      this.steps.set(level, s);
      this.post(this.window(level, s, true));
    }
    s.requests += 1;
    if (!isSuccessStatus(status)) s.errors += 1;
    if (sent < s.firstSend) s.firstSend = sent;
    if (tsMs > s.lastDone) s.lastDone = tsMs;
  }

  /** Queues every level's final window (levels in order of first appearance) and returns them. */
  close(): LevelReport[] {
    const reports: LevelReport[] = [];
    for (const [level, s] of this.steps) {
      const w = this.window(level, s, false);
      this.post(w);
      reports.push({ level, requests: s.requests, errors: s.errors, started_at: w.started_at, measure_from: w.measure_from, ended_at: w.ended_at! });
    }
    return reports;
  }

  /** The window spanning every request of the level seen so far; open (no end) while it may grow. */
  private window(level: number, s: Step, open: boolean): StepWindowInput & { started_at: number; measure_from: number; ended_at: number | null } {
    const started_at = Math.min(s.firstSend, s.scheduledStart ?? s.firstSend);
    const measure_from = started_at + this.warmupMs;
    return { level, started_at, measure_from, ended_at: open ? null : Math.max(s.lastDone, measure_from) };
  }
}
