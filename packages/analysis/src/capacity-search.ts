import type { CapacityLevel, CapacityPoint, SloClause } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';

/**
 * One measured level, as the search sees it: the level's judgement under every SLO (capacity.ts),
 * the throughput it achieved, and how far the worst SLO was from its threshold (value ÷ threshold,
 * 1 = on the line), which lets the search aim at the crossing instead of halving blindly.
 */
export interface SearchObservation {
  level: number;
  judgement: CapacityLevel['judgement'];
  qps: number;
  margin?: number | null;
}

export interface SearchOptions {
  /** The first level to run. */
  start: number;
  /** Closed loop: the level is a concurrency (whole numbers); open loop: an offered rate, which the service must achieve. */
  loadModel: 'closed' | 'open';
  /** Geometric growth per level while every SLO holds. */
  growth?: number;
  /** Stop when the bracket is this narrow, relative to its lower end. */
  precision?: number;
  /** Whole-number levels (default: closed loop). */
  integer?: boolean;
  /** Levels run at or past the first break (or a retrograde drop) at most: a shared target is protected. */
  maxOver?: number;
  /** Runs beyond the first of a level that stayed unclear (or was skipped): all its runs are decided together, then it is named, never a bound. */
  maxRepeats?: number;
  /** Never propose a level above this. */
  maxLevel?: number;
  /** Never run more than this many steps in all. */
  maxSteps?: number;
}

export const SEARCH_DEFAULTS = { growth: 2, precision: 0.05, maxOver: 1, maxRepeats: 2, maxSteps: 40 } as const;
/** Throughput this far below the best of lower levels is a retrograde drop: past the knee, treated as a break. */
const RETROGRADE_DROP = 0.1;
/** Open loop: an offered rate achieved this far short is saturation, treated as a break. */
const OPEN_SHORTFALL = 0.05;

export type SearchStep =
  | { done: false; level: number; reason: string }
  | {
      done: true;
      reason: string;
      /** The highest level that held below the upper bound; null when none did. */
      capacity: CapacityPoint | null;
      bracket: { holds: CapacityPoint | null; breaks: CapacityPoint | null };
      /** Levels that stayed unclear after their repeats: named, never counted as holding, never a break. */
      unclear: number[];
      /** Levels the load generator could not hold in any run (generator-limited or partial): no evidence either way. */
      skipped: number[];
      /** Runs at or past the first level that broke (≤ maxOver). */
      over: number;
    };

/** `skipped`: every run of the level was skipped (the agent, not the service, was the limit). */
type Verdict = 'holds' | 'breaks' | 'unclear' | 'skipped';
interface LevelState {
  level: number;
  runs: SearchObservation[];
  verdict: Verdict;
  /** Why this level bounds the search from above, if it does: a break, a retrograde drop or saturation — never an unclear or skipped level. */
  bound: string | null;
  /** Unclear or skipped after every repeat allowed: named in the answer, not run again. */
  exhausted: boolean;
  qps: number;
  margin: number | null;
}

type Resolved = Required<Omit<SearchOptions, 'maxLevel'>>;
const withDefaults = (options: SearchOptions): Resolved => ({
  growth: options.growth ?? SEARCH_DEFAULTS.growth,
  precision: options.precision ?? SEARCH_DEFAULTS.precision,
  integer: options.integer ?? options.loadModel === 'closed',
  maxOver: options.maxOver ?? SEARCH_DEFAULTS.maxOver,
  maxRepeats: options.maxRepeats ?? SEARCH_DEFAULTS.maxRepeats,
  maxSteps: options.maxSteps ?? SEARCH_DEFAULTS.maxSteps,
  start: options.start,
  loadModel: options.loadModel,
});

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Every run of a level taken together: a break in any run is a break; a hold counts when none broke; skipped runs are no evidence. */
function verdictOf(runs: readonly SearchObservation[]): Verdict {
  if (runs.some((r) => r.judgement === 'breaks')) return 'breaks';
  if (runs.some((r) => r.judgement === 'holds')) return 'holds';
  return runs.some((r) => r.judgement !== 'skipped') ? 'unclear' : 'skipped';
}

/**
 * One measurement of a level made in several runs at once (`--repeat`: the same level in every
 * repeat's run) as one observation, decided by the same rule as a level's runs: the planner then
 * counts it once towards its repeats of an unclear level, `maxOver` and `maxSteps`, whatever the
 * number of repeats. Throughput is the mean of the runs that measured; the margin the worst.
 */
export function poolObservations(runs: readonly SearchObservation[]): SearchObservation {
  const first = runs[0];
  if (!first) throw new Error('poolObservations needs at least one run');
  const measured = runs.filter((r) => r.judgement !== 'skipped');
  const margins = measured.map((r) => r.margin).filter((m): m is number => m != null && Number.isFinite(m));
  return { level: first.level, judgement: verdictOf(runs), qps: mean((measured.length > 0 ? measured : runs).map((r) => r.qps)), margin: margins.length > 0 ? Math.max(...margins) : null };
}

/**
 * Per level, every run taken together: a break in any run is a break; a hold counts when none broke;
 * a skipped run (the agent was the limit) is evidence of neither.
 */
function levelStates(history: readonly SearchObservation[], o: Resolved): LevelState[] {
  const byLevel = new Map<number, SearchObservation[]>();
  for (const obs of history) byLevel.set(obs.level, [...(byLevel.get(obs.level) ?? []), obs]);
  let bestQps = 0;
  return [...byLevel.entries()]
    .sort(([a], [b]) => a - b)
    .map(([level, runs]) => {
      // A skipped run (the agent was the limit) says nothing about the service's throughput either.
      const measured = runs.filter((r) => r.judgement !== 'skipped');
      const verdict = verdictOf(runs);
      const qps = mean((measured.length > 0 ? measured : runs).map((r) => r.qps));
      const margins = measured.map((r) => r.margin).filter((m): m is number => m != null && Number.isFinite(m) && m > 0);
      let bound: string | null = null;
      if (verdict === 'breaks') bound = 'an SLO breaks';
      else if (measured.length > 0 && qps < bestQps * (1 - RETROGRADE_DROP)) bound = 'throughput fell (retrograde)';
      else if (measured.length > 0 && o.loadModel === 'open' && qps < level * (1 - OPEN_SHORTFALL)) bound = 'the offered rate is not achieved (saturated)';
      const exhausted = (verdict === 'unclear' || verdict === 'skipped') && bound === null && runs.length > o.maxRepeats;
      if (measured.length > 0) bestQps = Math.max(bestQps, qps);
      return { level, runs, verdict, bound, exhausted, qps, margin: margins.length > 0 ? Math.max(...margins) : null };
    });
}

/**
 * Where the worst SLO crosses its threshold between a level under it and one over it: linear in
 * log(level) against log(margin), exact for a latency that grows as a power of the load (a closed
 * loop past its knee: p99 ∝ concurrency). Null without both margins.
 */
function estimateCrossing(lo: LevelState, hi: LevelState): number | null {
  if (lo.margin === null || hi.margin === null || !(lo.margin < 1) || !(hi.margin > 1)) return null;
  const a = Math.log(lo.margin);
  const b = Math.log(hi.margin);
  return Math.exp(Math.log(lo.level) + ((0 - a) * (Math.log(hi.level) - Math.log(lo.level))) / (b - a));
}

/** A margin must rise at least this steeply against load (log-log) before it is extrapolated: a flat one is noise. */
const MIN_RISE = 0.25;

/**
 * While growing: where the worst SLO's margin, rising over the last two levels, reaches 1 if it
 * keeps rising as it did (linear in log-log). Null when it does not rise clearly.
 */
function extrapolateCrossing(states: readonly LevelState[]): number | null {
  const [a, b] = states.slice(-2);
  if (!a || !b || a.margin === null || b.margin === null || !(b.margin < 1) || !(b.margin > a.margin)) return null;
  const slope = (Math.log(b.margin) - Math.log(a.margin)) / (Math.log(b.level) - Math.log(a.level));
  if (!(slope >= MIN_RISE)) return null;
  return Math.exp(Math.log(b.level) - Math.log(b.margin) / slope);
}

const point = (s: LevelState): CapacityPoint => ({ level: s.level, qps: s.qps });

/** The upper bound is a level that broke, fell (retrograde) or saturated — never one that only stayed unclear or skipped; `lo` the highest level under it that holds. */
function bracketOf(states: readonly LevelState[]): { upper: LevelState | null; below: readonly LevelState[]; lo: LevelState | null } {
  const upper = states.find((s) => s.bound !== null) ?? null;
  const below = upper ? states.filter((s) => s.level < upper.level) : states;
  const lo = [...below].reverse().find((s) => s.verdict === 'holds') ?? null;
  return { upper, below, lo };
}

/** How the search stands before its answer: each level's verdict over its runs and why it bounds the search, if it does, and the bracket so far. */
export interface SearchProgress {
  levels: Array<{ level: number; qps: number; judgement: Verdict; bound: string | null }>;
  bracket: { holds: CapacityPoint | null; breaks: CapacityPoint | null };
}

/** The search's levels and bracket as the planner sees them after `history` (the same rules as planCapacitySearch). */
export function searchProgress(history: readonly SearchObservation[], options: SearchOptions): SearchProgress {
  const states = levelStates(history, withDefaults(options));
  const { upper, lo } = bracketOf(states);
  return {
    levels: states.map((s) => ({ level: s.level, qps: s.qps, judgement: s.verdict, bound: s.bound })),
    bracket: { holds: lo ? point(lo) : null, breaks: upper ? point(upper) : null },
  };
}

/**
 * The search planner of `kneeboard sweep --slo … --search`: given what was measured so far, the
 * next level to run, or the answer. Pure: the same history always gives the same step.
 *
 * 1. Grow geometrically from `start` while every SLO holds.
 * 2. The first level that breaks an SLO, drops throughput (retrograde), or (open loop) fails to
 *    achieve its offered rate is the upper bound; at most `maxOver` runs are made at or past it.
 * 3. Narrow the bracket (last level that holds, upper bound) until it is `precision` of its lower
 *    end wide (one level apart for whole numbers): aim at the crossing estimated from the margins,
 *    a little under it, then one bracket-width above the lower end; halve when an end moved twice
 *    in a row (the estimate is off) or there are no margins.
 * 4. An unclear (or skipped) level is run again, up to `maxRepeats` more times, rather than guessed,
 *    all its runs decided together. Still unclear, it is named and is no evidence either way: never
 *    counted as holding, never a break — growth goes on past it (just past it when its margin puts it
 *    on the threshold), and narrowing stops at it. Skipped in every run (the load generator was the
 *    limit), it ends growth — nothing higher can be measured — and is never a reason to look lower.
 */
export function planCapacitySearch(history: readonly SearchObservation[], options: SearchOptions): SearchStep {
  const o = withDefaults(options);
  const maxLevel = options.maxLevel ?? Number.POSITIVE_INFINITY;
  if (history.length === 0) return { done: false, level: o.start, reason: `start at ${formatLevel(o.start)}` };

  const states = levelStates(history, o);
  const { upper, below, lo } = bracketOf(states);
  // Runs at or past the first run that bounded the search, from that run on: what maxOver bounds. (A
  // level that broke only on a repeat became the bound on that repeat, not on its earlier runs.)
  const boundedBy = (h: SearchObservation) => {
    const s = states.find((x) => x.level === h.level);
    return s !== undefined && s.bound !== null && (s.verdict !== 'breaks' || h.judgement === 'breaks');
  };
  const firstIndex = history.findIndex(boundedBy);
  const firstBreak = firstIndex >= 0 ? (history[firstIndex] as SearchObservation) : null;
  const over = firstBreak ? history.slice(firstIndex).filter((h) => h.level >= firstBreak.level).length : 0;
  const named = (v: Verdict) => states.filter((s) => s.exhausted && s.verdict === v).map((s) => s.level);
  const finish = (reason: string): SearchStep => ({
    done: true,
    reason,
    capacity: lo ? point(lo) : null,
    bracket: { holds: lo ? point(lo) : null, breaks: upper ? point(upper) : null },
    unclear: named('unclear'),
    skipped: named('skipped'),
    over,
  });
  if (history.length >= o.maxSteps) return finish(`stopped after ${history.length} runs (the most allowed)`);

  // An unclear or skipped level under the upper bound is measured again, and all its runs decided
  // together, before anything is decided from it.
  const pending = below.find((s) => (s.verdict === 'unclear' || s.verdict === 'skipped') && !s.exhausted);
  if (pending) {
    const what = pending.verdict === 'skipped' ? 'the load generator was the limit at' : 'unclear at';
    return { done: false, level: pending.level, reason: `${what} ${formatLevel(pending.level)}: run it again (${pending.runs.length + 1} of ${o.maxRepeats + 1})` };
  }
  // The lowest level the load generator could not hold in any run: nothing above it can be measured,
  // and it is no reason to look lower either (it says nothing of the service).
  const ceiling = below.find((s) => s.exhausted && s.verdict === 'skipped') ?? null;

  const top = states[states.length - 1] as LevelState;
  const grow = (level: number) => (o.integer ? Math.max(level + 1, Math.ceil(level * o.growth)) : level * o.growth);
  const justPast = (level: number) => (o.integer ? Math.max(level + 1, Math.ceil(level * (1 + o.precision))) : level * (1 + o.precision));
  if (!upper) {
    if (ceiling) return finish(`the load generator could not hold ${formatLevel(ceiling.level)} in ${ceiling.runs.length} runs: no higher level can be measured`);
    if (top.level >= maxLevel) return finish(`every SLO holds up to ${formatLevel(top.level)}, the highest level allowed`);
    // Unclear after its repeats: no evidence either way, so the search goes on past it — just past
    // it when its margin puts it on the threshold, else growing (a higher level has more samples).
    if (top.exhausted && top.margin !== null && Math.abs(Math.log(top.margin)) <= Math.log(1 + 2 * o.precision)) {
      return { done: false, level: Math.min(justPast(top.level), maxLevel), reason: `${formatLevel(top.level)} stayed unclear on the threshold: just past it` };
    }
    const ahead = extrapolateCrossing(states);
    const step = grow(top.level);
    if (ahead !== null) {
      // Just past where the rising margin says the SLO will break: a smaller step than growing, never a larger one.
      const just = o.integer ? Math.ceil(ahead * (1 + o.precision / 2)) : ahead * (1 + o.precision / 2);
      if (just > top.level && just < step) return { done: false, level: Math.min(just, maxLevel), reason: `the SLO margin rises: aim just past the crossing near ${formatLevel(ahead)}` };
    }
    const why = top.exhausted ? `${formatLevel(top.level)} stayed unclear (no evidence either way): grow` : `every SLO holds at ${formatLevel(top.level)}: grow`;
    return { done: false, level: Math.min(step, maxLevel), reason: why };
  }
  // Past the first break: only to confirm it (maxOver > 1), never further than that.
  if (firstBreak && over < o.maxOver && top.level >= firstBreak.level && top.bound !== null && top.level < maxLevel) {
    return { done: false, level: Math.min(grow(top.level), maxLevel), reason: `${formatLevel(top.level)}: ${top.bound}; confirm once more above it (${over + 1} of ${o.maxOver} past the break)` };
  }

  if (lo === null) {
    // Look lower only from a level that broke: a lower level that stayed unclear (fewer samples
    // still below it) or that the generator could not hold ends the search without an answer.
    const smallest = states[0] as LevelState;
    const down = o.integer ? Math.floor(smallest.level / o.growth) : smallest.level / o.growth;
    if (smallest.level !== upper.level || down < (o.integer ? 1 : o.start / 64) || down >= smallest.level) {
      return finish(`${formatLevel(upper.level)}: ${upper.bound}, and nothing lower holds`);
    }
    return { done: false, level: down, reason: `${formatLevel(upper.level)}: ${upper.bound} already; look lower` };
  }

  // Narrow between the last level that holds and the upper bound — or, nearer, a level that stayed
  // unclear or skipped after its repeats: the crossing cannot be placed closer than that one.
  const soft = below.find((s) => s.exhausted && s.level > lo.level) ?? null;
  const hi = soft ?? upper;
  const width = Math.max(o.precision * lo.level, o.integer ? 1 : 0);
  if (hi.level - lo.level <= width) {
    const softly = soft ? `, ${soft.verdict === 'skipped' ? 'generator-limited' : 'unclear'} at ${formatLevel(soft.level)}` : '';
    return finish(`bracketed: holds at ${formatLevel(lo.level)}${softly}, ${upper.bound} at ${formatLevel(upper.level)}`);
  }

  // A level that stayed unclear sits on the threshold: the crossing is there.
  const estimate = soft ? (soft.verdict === 'unclear' ? soft.level : null) : sameEndTwice(history, states, lo, hi) ? null : estimateCrossing(lo, hi);
  // Aim a little under the estimate; near an end, one bracket-width from it, so the next answer
  // either finishes the search or moves that end by a full width.
  let next: number;
  let round = Math.round;
  if (estimate === null) next = (lo.level + hi.level) / 2;
  else if (estimate - lo.level <= width) [next, round] = [lo.level + width, Math.floor];
  else if (hi.level - estimate <= width) [next, round] = [hi.level - width, Math.ceil];
  else next = estimate - width / 2;
  next = o.integer ? Math.min(hi.level - 1, Math.max(lo.level + 1, round(next))) : Math.min(hi.level - width / 4, Math.max(lo.level + width / 4, next));
  return { done: false, level: next, reason: `narrow (${formatLevel(lo.level)}, ${formatLevel(hi.level)}]${estimate === null ? ' by halving' : ` towards the crossing near ${formatLevel(estimate)}`}` };
}

/**
 * The last two narrowing runs moved the same end of the bracket (the estimate keeps landing on one
 * side: regula falsi's stall); the next step halves instead. Narrowing runs are those after the
 * first run at or above the upper bound.
 */
function sameEndTwice(history: readonly SearchObservation[], states: readonly LevelState[], lo: LevelState, hi: LevelState): boolean {
  const first = history.findIndex((h) => h.level >= hi.level);
  const narrowing = history.slice(first + 1);
  if (narrowing.length < 2) return false;
  const [prev, last] = narrowing.slice(-2) as [SearchObservation, SearchObservation];
  const stateOf = (level: number) => states.find((s) => s.level === level) as LevelState;
  const raisedLo = last.level === lo.level && prev.level < last.level && stateOf(prev.level).verdict === 'holds' && stateOf(prev.level).bound === null;
  const loweredHi = last.level === hi.level && prev.level > last.level && stateOf(prev.level).bound !== null;
  return raisedLo || loweredHi;
}

/**
 * A measured level as the search sees it: its judgement, its throughput, and the worst SLO's
 * value ÷ threshold (an `errors<=0%` clause has no ratio and is left out of it).
 */
export function searchObservation(level: CapacityLevel, slos: readonly SloClause[]): SearchObservation {
  const margins = level.checks.flatMap((c, i) => {
    const clause = slos[i];
    if (!clause || c.value === null) return [];
    const max = clause.metric === 'errors' ? clause.max_percent : clause.max_ms;
    return max > 0 ? [c.value / max] : [];
  });
  return { level: level.level, judgement: level.judgement, qps: level.qps, margin: margins.length > 0 ? Math.max(...margins) : null };
}
