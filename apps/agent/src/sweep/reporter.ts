import type { SearchStep } from '@kneeboard/analysis';
import type { LevelSummary } from '../load/level-stats.ts';

export interface StepStart {
  level: number;
  /** The load held at this level: concurrency or requests/s. */
  load: number;
  /** 0-based position in the sweep, and the number of levels. */
  index: number;
  count: number;
  started_at: number;
  measure_from: number;
  /** Planned end of the measurement window, epoch ms. */
  ends_at: number;
}

export interface StepProgress {
  level: number;
  phase: 'warm-up' | 'measuring';
  elapsedMs: number;
  totalMs: number;
  /** Successful responses per second over the last progress interval. */
  qps: number;
  /** Requests on the wire right now. */
  inFlight: number;
}

/** What a sweep tells its caller as it goes. Every hook is optional. */
export interface SweepReporter {
  runCreated?(run: { runId: string; runUrl: string }): void;
  /** Before a level's --before-level command runs. */
  levelPreparing?(p: { level: number; command: string }): void;
  stepStarted?(step: StepStart): void;
  /** About four times a second during a step, only when this hook is given. */
  progress?(p: StepProgress): void;
  stepFinished?(summary: LevelSummary): void;
  /** `--search`: the planner's decision after each judged level (the next level and why, or the answer). */
  searchStep?(step: SearchStep): void;
  /** Something worth telling but not fatal: retries, leftovers re-sent, a target without Server-Timing. */
  warn?(message: string): void;
}
