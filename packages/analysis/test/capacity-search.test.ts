import { describe, expect, it } from 'vitest';
import { planCapacitySearch, prng, searchObservation, SEARCH_DEFAULTS, type SearchObservation, type SearchOptions } from '../src/index.ts';

/** Runs the planner against a fake measurement until it answers; returns the answer and every level it ran. */
function search(measure: (level: number, run: number) => SearchObservation, options: SearchOptions) {
  const history: SearchObservation[] = [];
  for (;;) {
    const step = planCapacitySearch(history, options);
    if (step.done) return { step, levels: history.map((h) => h.level) };
    const runs = history.filter((h) => h.level === step.level).length;
    history.push(measure(step.level, runs));
    if (history.length > 100) throw new Error('the search did not stop');
  }
}

/**
 * A closed-loop server of W workers × S ms (the demo target): throughput min(c, W)·1000/S, and
 * p99 = F·S up to c = W, then F·S·c/W (Little's law). Under p99 ≤ k·F·S the SLO holds up to
 * c* = k·W exactly. Within ±0.5% of the threshold a level is unclear (the interval straddles it).
 */
function closedLoop(W: number, S: number, k: number) {
  const F = 1.79;
  const threshold = k * F * S;
  return (level: number): SearchObservation => {
    const p99 = F * S * Math.max(1, level / W);
    const margin = p99 / threshold;
    const judgement = Math.abs(margin - 1) < 0.005 ? 'unclear' : margin <= 1 ? 'holds' : 'breaks';
    return { level, judgement, qps: (Math.min(level, W) * 1000) / S, margin };
  };
}

/**
 * What a doubling grid needs for the same precision: 1, 2, 4 … up to the first level past c*,
 * then every level of the last doubling's bracket at steps of the precision (whole numbers).
 */
function doublingGridLevels(capacity: number, precision: number): number {
  let doubling = 1;
  let level = 1;
  while (level <= capacity) [level, doubling] = [level * 2, doubling + 1];
  const lo = level / 2;
  const step = Math.max(1, precision * lo);
  return doubling + Math.ceil((level - lo) / step) - 1;
}

describe('planCapacitySearch', () => {
  // Capacities between grid levels (c* = k·W not a whole number): none lands on the threshold.
  const cases = [
    { W: 4, S: 20, k: 2.6 },
    { W: 8, S: 20, k: 3.1 },
    { W: 13, S: 5, k: 1.5 },
    { W: 50, S: 10, k: 2.03 },
    { W: 20, S: 40, k: 4.13 },
    { W: 100, S: 2, k: 1.33 },
    { W: 300, S: 5, k: 1.77 },
  ];
  it.each(cases)('finds a W×S server’s capacity (W=$W, p99 ≤ $k·S) within ±5% in at most half the levels of a doubling grid', ({ W, S, k }) => {
    const truth = k * W;
    const { step, levels } = search(closedLoop(W, S, k), { start: 1, loadModel: 'closed' });
    if (!step.done) throw new Error('unreachable');
    const found = step.capacity?.level as number;
    expect(found).toBeLessThanOrEqual(truth);
    // Whole-number levels: within 5%, or the next whole level below c* when 5% is less than one.
    expect(found).toBeGreaterThanOrEqual(Math.min(truth * 0.95, Math.ceil(truth) - 1));
    expect(step.bracket.breaks!.level).toBeGreaterThanOrEqual(truth);
    expect((step.bracket.breaks!.level - found) / found).toBeLessThanOrEqual(0.05 + 1 / found);
    expect(levels.length).toBeLessThanOrEqual(doublingGridLevels(truth, 0.05) / 2);
    // Never more than one level at or past the first break: the target is protected.
    const firstBreak = levels.find((l) => l >= truth && l >= step.bracket.breaks!.level) as number;
    expect(levels.filter((l) => l >= firstBreak)).toEqual([firstBreak]);
    expect(step.over).toBe(1);
  });

  it('repeats an unclear level instead of guessing, a bounded number of times, and never counts it', () => {
    // c* = 24 exactly: a level of 24 sits on the threshold and is unclear every time.
    const { step, levels } = search(closedLoop(8, 20, 3), { start: 1, loadModel: 'closed' });
    if (!step.done) throw new Error('unreachable');
    const at24 = levels.filter((l) => l === 24).length;
    expect(at24).toBe(3);
    expect(step.unclear).toEqual([24]);
    expect(step.capacity?.level).toBe(23);
    // Unclear is not a break: the bracket's upper end is the level that broke.
    expect(step.bracket.breaks?.level).toBe(25);
    // The repeats are below the first break (25): they do not count against maxOver.
    expect(levels.filter((l) => l >= 25)).toEqual([25]);
    expect(step.over).toBe(1);
    expect(levels).toHaveLength(10);
    // And a level unclear once, then clear, is decided by the clear run.
    let calls = 0;
    const flaky = (level: number): SearchObservation => {
      const base = closedLoop(8, 20, 3)(level);
      return level === 16 && calls++ === 0 ? { ...base, judgement: 'unclear' } : base;
    };
    const second = search(flaky, { start: 1, loadModel: 'closed' });
    expect(second.levels.filter((l) => l === 16)).toHaveLength(2);
    expect(second.levels.indexOf(16) + 1).toBe(second.levels.lastIndexOf(16));
    expect(second.step.done && second.step.capacity!.level).toBeGreaterThanOrEqual(22);
  });

  it('stops growing at a retrograde drop, and runs nothing past it', () => {
    // Throughput peaks at 16 and collapses at 32; the SLO (lenient) never breaks on latency.
    const retro = (level: number): SearchObservation => ({ level, judgement: 'holds', qps: level <= 16 ? level * 10 : 80, margin: 0.1 });
    const { step, levels } = search(retro, { start: 1, loadModel: 'closed' });
    if (!step.done) throw new Error('unreachable');
    expect(levels.filter((l) => l >= 32)).toEqual([32]);
    // The drop is right after 16: narrowing finds it there.
    expect(step.bracket.breaks?.level).toBe(17);
    expect(step.capacity!.level).toBe(16);
  });

  it('takes neither a retrograde drop nor a margin from a skipped (generator-limited) run', () => {
    // Level 2's first run is the agent's ceiling: low throughput, high latency. Its re-run is the service's.
    let runs2 = 0;
    const measure = (level: number): SearchObservation => {
      const base = closedLoop(8, 20, 2.5)(level);
      return level === 2 && runs2++ === 0 ? { ...base, judgement: 'skipped', qps: 5, margin: 3 } : base;
    };
    const { step, levels } = search(measure, { start: 1, loadModel: 'closed' });
    expect(levels.slice(0, 3)).toEqual([1, 2, 2]);
    expect(step.done && step.capacity?.level).toBeGreaterThanOrEqual(19);
  });

  it('runs at most maxOver levels past the first break', () => {
    // No margins to aim with: growth doubles into the break (at 32 for c* = 20).
    const measure = (level: number): SearchObservation => ({ ...closedLoop(8, 20, 2.5)(level), margin: null });
    const once = search(measure, { start: 1, loadModel: 'closed' });
    const twice = search(measure, { start: 1, loadModel: 'closed', maxOver: 2 });
    expect(once.levels.filter((l) => l >= 32)).toEqual([32]);
    expect(twice.levels.filter((l) => l >= 32)).toEqual([32, 64]);
    expect(twice.step.done && twice.step.capacity?.level).toBe(once.step.done && once.step.capacity?.level);
  });

  it('answers no capacity when the first level already breaks and nothing lower holds', () => {
    const { step, levels } = search(closedLoop(8, 20, 0.5), { start: 4, loadModel: 'closed' });
    expect(levels).toEqual([4, 2, 1]);
    expect(step.done && step.capacity).toBeNull();
  });

  it('finds the open-loop capacity of an M/M/1 queue (p99 = ln 100 ÷ (μ − λ)) within ±5%', () => {
    const mu = 1000;
    const T = 0.02;
    const truth = mu - Math.log(100) / T; // ≈ 769.7 req/s
    const mm1 = (rate: number): SearchObservation => {
      const p99 = rate < mu ? Math.log(100) / (mu - rate) : 1e9;
      return { level: rate, judgement: p99 <= T ? 'holds' : 'breaks', qps: Math.min(rate, mu), margin: p99 / T };
    };
    const { step, levels } = search(mm1, { start: 50, loadModel: 'open' });
    if (!step.done) throw new Error('unreachable');
    expect(step.capacity!.level).toBeLessThanOrEqual(truth);
    expect(step.capacity!.level).toBeGreaterThanOrEqual(truth * 0.95);
    expect(levels.filter((l) => l >= 800)).toEqual([800]);
    expect(levels.length).toBeLessThanOrEqual(10);
  });

  it('treats an offered rate the service does not achieve as past capacity (open loop)', () => {
    const saturating = (rate: number): SearchObservation => ({ level: rate, judgement: 'holds', qps: Math.min(rate, 300), margin: 0.5 });
    const { step } = search(saturating, { start: 100, loadModel: 'open' });
    if (!step.done) throw new Error('unreachable');
    expect(step.bracket.breaks!.level).toBeGreaterThan(300);
    // Achieved within 5% of the offered rate counts as achieved.
    expect(step.capacity!.level).toBeLessThanOrEqual(300 / 0.95);
    expect(step.capacity!.level).toBeGreaterThanOrEqual(300 * 0.95);
  });

  it('reads a capacity level into an observation with the worst margin', () => {
    const obs = searchObservation(
      {
        level: 8,
        qps: 400,
        judgement: 'breaks',
        skipped_reason: null,
        checks: [
          { slo: 'p99<=50ms', value: 60, low: 55, high: 65, basis: 'bootstrap', judgement: 'breaks' },
          { slo: 'errors<=1%', value: 0.5, low: 0.3, high: 0.7, basis: 'binomial', judgement: 'holds' },
        ],
      },
      [
        { metric: 'p99', max_ms: 50 },
        { metric: 'errors', max_percent: 1 },
      ],
    );
    expect(obs).toEqual({ level: 8, judgement: 'breaks', qps: 400, margin: 1.2 });
  });
});

describe('planCapacitySearch with levels that are unclear or generator-limited (synthetic outcomes)', () => {
  // Open loop, 3 s levels: below 500 requests a level has no p99 (unclear); the agent cannot send
  // more than `agentCeiling` req/s (skipped); the service breaks p99 above `capacity` req/s.
  const openLoop = (o: { capacity: number; agentCeiling: number; minRate: number }) => (rate: number): SearchObservation => {
    if (rate >= o.agentCeiling) return { level: rate, judgement: 'skipped', qps: o.agentCeiling * 0.8, margin: null };
    const margin = rate / o.capacity;
    const judgement = rate < o.minRate ? 'unclear' : margin <= 1 ? 'holds' : 'breaks';
    return { level: rate, judgement, qps: rate, margin: rate < o.minRate ? null : margin };
  };

  it('never walks down from a level that was unclear and one the generator could not hold (the 3 req/s walk)', () => {
    // 200 req/s: too few requests for a p99 every time; 400: the agent is the limit every time.
    const { step, levels } = search(openLoop({ capacity: 308, agentCeiling: 400, minRate: 300 }), { start: 200, loadModel: 'open' });
    if (!step.done) throw new Error('unreachable');
    expect(levels).toEqual([200, 200, 200, 400, 400, 400]);
    expect(Math.min(...levels)).toBe(200);
    expect(step).toMatchObject({ capacity: null, bracket: { holds: null, breaks: null }, unclear: [200], skipped: [400], over: 0 });
    expect(step.reason).toBe('the load generator could not hold 400 in 3 runs: no higher level can be measured');
  });

  it('stops where the generator is the limit from the first level: no level below it is run', () => {
    const { step, levels } = search(openLoop({ capacity: 308, agentCeiling: 100, minRate: 0 }), { start: 200, loadModel: 'open' });
    expect(levels).toEqual([200, 200, 200]);
    expect(step).toMatchObject({ done: true, capacity: null, skipped: [200], unclear: [] });
  });

  it('grows past a level too short to judge, and finds the capacity above it within 5%', () => {
    const { step, levels } = search(openLoop({ capacity: 308, agentCeiling: 10_000, minRate: 150 }), { start: 100, loadModel: 'open' });
    if (!step.done) throw new Error('unreachable');
    expect(levels.slice(0, 4)).toEqual([100, 100, 100, 200]);
    expect(step.unclear).toEqual([100]);
    expect(step.capacity!.level).toBeLessThanOrEqual(308);
    expect(step.capacity!.level).toBeGreaterThanOrEqual(308 * 0.95);
    // Nothing ran below the start, and one level at or past the first break.
    expect(Math.min(...levels)).toBe(100);
    expect(step.over).toBe(1);
  });

  it('decides a level on all its runs together: skipped runs are no evidence, one that holds decides it', () => {
    // Level 8: skipped, then unclear, then holds — it holds; its skipped run never counts either way.
    let runs8 = 0;
    const measure = (level: number): SearchObservation => {
      const base = closedLoop(8, 20, 2.6)(level);
      if (level !== 8) return base;
      runs8 += 1;
      return runs8 === 1 ? { ...base, judgement: 'skipped', qps: 1, margin: 9 } : runs8 === 2 ? { ...base, judgement: 'unclear' } : base;
    };
    const { step, levels } = search(measure, { start: 1, loadModel: 'closed' });
    expect(levels.filter((l) => l === 8)).toEqual([8, 8, 8]);
    expect(step.done && step.capacity!.level).toBe(20);
    expect(step.done && step.skipped).toEqual([]);
  });

  it('narrows no closer than a level the generator could not hold inside the bracket, and names it', () => {
    // The service breaks above 20; the agent cannot hold 17–19 (e.g. a flaky connection pool there).
    const measure = (level: number): SearchObservation => {
      const base = closedLoop(8, 20, 2.5)(level);
      return level >= 17 && level <= 19 ? { ...base, judgement: 'skipped' } : base;
    };
    const { step } = search(measure, { start: 1, loadModel: 'closed' });
    if (!step.done) throw new Error('unreachable');
    expect(step.skipped.length).toBeGreaterThan(0);
    expect(step.skipped.every((l) => l >= 17 && l <= 19)).toBe(true);
    expect(step.capacity!.level).toBeLessThan(Math.min(...step.skipped));
    expect(step.bracket.breaks!.level).toBeGreaterThan(20);
  });

  it.each([1, 2])('over 300 random services and agents, never more than maxOver=%i runs at or past the first break, never below the start unless it broke', (maxOver) => {
    for (let seed = 1; seed <= 300; seed++) {
      const random = prng(seed * 7 + maxOver);
      const capacity = 2 + random() * 200;
      const agentCeiling = random() < 0.3 ? 2 + random() * 300 : Number.POSITIVE_INFINITY;
      const unclearShare = random() * 0.5;
      const start = 1 + Math.floor(random() * 16);
      const truth = (level: number): SearchObservation['judgement'] => (level >= agentCeiling ? 'skipped' : random() < unclearShare ? 'unclear' : level <= capacity ? 'holds' : 'breaks');
      const history: SearchObservation[] = [];
      let step = planCapacitySearch(history, { start, loadModel: 'closed', maxOver });
      while (!step.done) {
        history.push({ level: step.level, judgement: truth(step.level), qps: Math.min(step.level, capacity) * 10, margin: null });
        step = planCapacitySearch(history, { start, loadModel: 'closed', maxOver });
      }
      const context = JSON.stringify({ seed, capacity, agentCeiling, start, levels: history.map((h) => `${h.level}${h.judgement[0]}`) });
      // From the first run that broke on, at most maxOver runs at or above its level (an unclear run
      // of that level before it was a repeat the planner had to make before anything broke).
      const first = history.findIndex((h) => h.judgement === 'breaks');
      if (first >= 0) expect(history.slice(first).filter((h) => h.level >= history[first]!.level).length, context).toBeLessThanOrEqual(maxOver);
      expect(step.over, context).toBeLessThanOrEqual(maxOver);
      // Looking lower than the start only ever follows a break at the lowest level run so far.
      const startBroke = history.some((h) => h.level === start && h.judgement === 'breaks');
      if (!startBroke) expect(Math.min(...history.map((h) => h.level)), context).toBe(start);
      // The answer held in some run and broke in none; a level only ever skipped is never the answer.
      if (step.capacity) {
        const runs = history.filter((h) => h.level === step.capacity!.level);
        expect(runs.some((r) => r.judgement === 'holds'), context).toBe(true);
        expect(runs.some((r) => r.judgement === 'breaks'), context).toBe(false);
      }
      expect(history.length, context).toBeLessThanOrEqual(SEARCH_DEFAULTS.maxSteps);
    }
  });
});
