import type { AnalysisPoint, EndpointAnalysis, EndpointKnee, LoadModel } from '@kneeboard/contracts';
import { formatLevel, formatMs } from '@kneeboard/contracts/figures';
import { analyzeCurve } from './analyze.ts';
import { at } from './format.ts';

export interface NamedCurve {
  name: string;
  requests: number;
  curve: AnalysisPoint[];
}

export interface EndpointInput {
  /** The run's own knee level (its whole curve's), or null when it shows none. */
  runKnee: number | null;
  /** The run's levels with data, for when it has no knee: the names are then compared at the highest. */
  levels: number[];
  load_model: LoadModel;
  parameter: string;
  names: NamedCurve[];
}

/**
 * Which endpoint gives out first, and which one makes the tail. Each name's curve is analysed
 * as a run of its own (the same knee methods: where its throughput stops growing with the load,
 * or its latency turns up); the name whose knee comes at the lowest level saturates first. At the
 * run's knee — where the whole service gives out, or its highest level when it does not — the
 * name with the highest p99 is the one dominating the tail. Pure: the run page, the API and the
 * Markdown all say the same.
 */
export function analyzeEndpoints(input: EndpointInput): EndpointAnalysis {
  const { runKnee, load_model, parameter } = input;
  const level = runKnee ?? (input.levels.length > 0 ? Math.max(...input.levels) : null);
  const endpoints: EndpointKnee[] = input.names.map(({ name, requests, curve }) => {
    const knee = curve.length > 0 ? analyzeCurve({ curve, load_model, parameter }).knee : null;
    const point = level === null ? undefined : curve.find((p) => p.level === level);
    return { name, requests, knee_level: knee?.level ?? null, p99_ms: point?.p99_ms ?? null };
  });
  const withKnee = endpoints.filter((e) => e.knee_level !== null);
  // Lowest knee first; at the same level, the slower tail there is the one that gave out.
  const first = withKnee.sort((a, b) => a.knee_level! - b.knee_level! || (b.p99_ms ?? -1) - (a.p99_ms ?? -1))[0] ?? null;
  const tail = endpoints.filter((e) => e.p99_ms !== null).sort((a, b) => b.p99_ms! - a.p99_ms!)[0] ?? null;
  return {
    level,
    level_is_knee: runKnee !== null,
    endpoints: [...endpoints].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    saturates_first: first?.name ?? null,
    dominates_p99: tail?.name ?? null,
    summary: summary(first, tail, endpoints, level, runKnee !== null, parameter),
  };
}

function summary(first: EndpointKnee | null, tail: EndpointKnee | null, all: EndpointKnee[], level: number | null, isKnee: boolean, parameter: string): string {
  const parts: string[] = [];
  if (first) {
    const others = all.filter((e) => e !== first && e.knee_level !== null);
    const later = others.length > 0 ? ` (the next: ${others.sort((a, b) => a.knee_level! - b.knee_level!)[0]!.name} at ${formatLevel(others[0]!.knee_level!)})` : '';
    parts.push(`${first.name} saturates first: its knee is at ${at(parameter, first.knee_level!)}${later}.`);
  } else {
    parts.push('No endpoint shows a knee in the levels swept.');
  }
  if (tail && level !== null) {
    const runner = all.filter((e) => e !== tail && e.p99_ms !== null).sort((a, b) => b.p99_ms! - a.p99_ms!)[0];
    const against = runner ? `, against ${formatMs(runner.p99_ms)} ms for ${runner.name}` : '';
    parts.push(`At ${isKnee ? "the run's knee" : 'the highest level'} (${at(parameter, level)}) ${tail.name} dominates p99: ${formatMs(tail.p99_ms)} ms${against}.`);
  }
  return parts.join(' ');
}
