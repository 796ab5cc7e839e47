import { createServerTimingParser } from '@kneeboard/agent-sdk';
import { planCapacitySearch, type SearchObservation, type SearchOptions } from '@kneeboard/analysis';
import type { CurvePoint, FleetPlanInput } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { runBeforeLevel } from '../sweep/before-level.ts';
import { loadAt, type SweepConfig } from '../sweep/config.ts';
import { refineLevels } from '../sweep/refine-levels.ts';
import { apiJudge, searchOptions, stoppedAnswer, type SearchResult } from '../sweep/search-levels.ts';
import { targetRequestOf } from '../sweep/target-request.ts';

type PlanStep = FleetPlanInput['steps'][number];

/** What the coordinator tells the API once the plan's steps so far have all run: more steps, or the end. */
export type Extension = { kind: 'steps'; steps: PlanStep[] } | { kind: 'close' };

/**
 * A sweep's plan for several agents, when the API cannot be given it whole up front: with
 * `--before-level` each level's command runs on the coordinator's host between steps, so levels
 * are handed to the API one at a time, each once its command ran and the target is ready; with
 * `--refine` the levels inside the knee's bracket are known only once the grid's curve is; with
 * `--search` each next level is the planner's, decided from the step all agents just measured
 * (judged by the API on the run they share, every repeat's run pooled).
 */
export class PlanExtension {
  readonly #pending: number[];
  #refined = false;
  /** The runs a level is measured in: one, or one per --repeat (each level once in each, interleaved). */
  #runIds: string[] = [];
  /** `--search`: the level the plan's last steps measured, and every level judged so far. */
  #searching: number | null = null;
  readonly #observations: SearchObservation[] = [];
  #answer: SearchResult['answer'] | null = null;
  readonly #searchOptions: SearchOptions;

  constructor(
    private readonly cfg: SweepConfig,
    private readonly say: (line: string) => void,
    private readonly signal: AbortSignal,
  ) {
    this.#pending = this.hooked && !cfg.search ? cfg.levels.slice(1) : [];
    // A plan takes a level once per run (a second window would replace the first), so a level that
    // stays unclear is named at once rather than run again.
    this.#searchOptions = { ...searchOptions(cfg), maxRepeats: 0 };
  }

  /** `--search`: the answer and every level judged (so far, when stopped early); null without --search. */
  get search(): SearchResult | null {
    if (!this.cfg.search) return null;
    return { answer: this.#answer ?? stoppedAnswer(this.#observations, this.#searchOptions), observations: [...this.#observations] };
  }

  /** The runs the steps record into, the plan's own first (set once they are created). */
  setRuns(runIds: string[]): void {
    this.#runIds = runIds;
  }

  /** Which repeat (1-based) a run of the plan is. */
  repeatOf(runId: string): number {
    return this.#runIds.findIndex((id) => id.toLowerCase() === runId.toLowerCase()) + 1;
  }

  #stepsOf(level: number): PlanStep[] {
    const step = { level, load: loadAt(this.cfg, level) };
    return this.#runIds.length > 1 ? this.#runIds.map((run_id) => ({ ...step, run_id })) : [step];
  }

  /** Whether the API's plan must stay open for more steps. */
  get open(): boolean {
    return this.hooked || this.cfg.refine || this.cfg.search;
  }

  get hooked(): boolean {
    return this.cfg.beforeLevel !== undefined;
  }

  /** The steps the plan starts with: the first level only when a command must run before each. */
  initialSteps(): PlanStep[] {
    if (this.cfg.search) this.#searching = this.cfg.levels[0]!;
    return (this.hooked || this.cfg.search ? this.cfg.levels.slice(0, 1) : this.cfg.levels).flatMap((level) => this.#stepsOf(level));
  }

  /** Runs `--before-level` for a level and waits until the target answers (nothing without the flag). */
  async prepare(level: number): Promise<void> {
    const { cfg } = this;
    if (cfg.beforeLevel === undefined) return;
    this.say(`--before-level for ${cfg.parameter} ${level}: ${cfg.beforeLevel.replaceAll('{level}', String(level))}`);
    await runBeforeLevel({
      command: cfg.beforeLevel,
      level,
      parameter: cfg.parameter,
      readyUrl: new URL(cfg.readyUrl ?? cfg.target),
      readyRequest: targetRequestOf(cfg),
      timeoutMs: cfg.readyTimeoutMs,
      parseTiming: createServerTimingParser(cfg.serverTiming),
      signal: this.signal,
    });
  }

  /** What comes after the steps so far, given the (first) run's curve as the API computes it now. */
  async next(curve: () => Promise<CurvePoint[]>): Promise<Extension> {
    if (this.cfg.search) return this.#nextSearched();
    if (this.#pending.length === 0 && this.cfg.refine && !this.#refined) {
      this.#refined = true;
      const added = refineLevels(await curve(), this.cfg.loadModel, this.cfg.parameter);
      if (added.length > 0) this.say(`--refine: the knee lies between two levels of the grid; adding ${this.cfg.parameter} ${added.join(', ')} to place it closer`);
      this.#pending.push(...added);
    }
    if (this.#pending.length === 0) return { kind: 'close' };
    // One level at a time when its command must run first; otherwise all that is known at once.
    const levels = this.hooked ? this.#pending.splice(0, 1) : this.#pending.splice(0);
    if (this.hooked) await this.prepare(levels[0]!);
    return { kind: 'steps', steps: levels.flatMap((level) => this.#stepsOf(level)) };
  }

  /** `--search`: judge the level just measured, then the planner's next level (its command first), or the end. */
  async #nextSearched(): Promise<Extension> {
    if (this.#searching !== null) {
      // The agents deliver a step's events before they report it (an open plan): a settled step is whole in its run.
      const runs = this.#runIds.map((runId) => ({ runId, flush: async () => {} }));
      this.#observations.push(await apiJudge(this.cfg, runs, this.cfg.slos)(this.#searching));
      this.#searching = null;
    }
    const step = planCapacitySearch(this.#observations, this.#searchOptions);
    if (step.done) {
      this.#answer = step;
      return { kind: 'close' };
    }
    if (this.#observations.some((o) => o.level === step.level)) {
      this.say(`search: stopped — ${step.reason}, but ${this.cfg.parameter} ${formatLevel(step.level)} already ran and a plan takes a level once`);
      this.#answer = stoppedAnswer(this.#observations, this.#searchOptions);
      return { kind: 'close' };
    }
    this.say(`search: ${this.cfg.parameter} ${formatLevel(step.level)} — ${step.reason}`);
    await this.prepare(step.level);
    this.#searching = step.level;
    return { kind: 'steps', steps: this.#stepsOf(step.level) };
  }

  /** The longest an open plan should wait for the coordinator between steps: a command's whole time, and a minute. */
  openTimeoutMs(): number {
    return Math.min(3_600_000, Math.max(600_000, this.cfg.readyTimeoutMs + 60_000));
  }
}
