/**
 * What the fixture API needs to answer like the real one for comparisons and exports: raw samples
 * synthesised from each curve point (the API reads them from ClickHouse), the comparison computed by
 * `@kneeboard/analysis/compare` exactly as the API does (seeded by the run ids, so a permalink always
 * gives the same verdict), its Markdown, and a run's curve as CSV.
 */
import { compareGroups, compareMarkdown, DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, levelFlags, seedFrom, type LevelSamples, type RunGroup } from '@kneeboard/analysis/compare';
import { prng } from '@kneeboard/analysis/testing';
import { formatRunGroupRef, type CompareQuery, type CompareResponse, type CurvePoint, type RunDetail } from '@kneeboard/contracts';

function normal(rand: () => number): number {
  const u = Math.max(1e-12, rand());
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

const LATENCY_SAMPLES = 400;
/** Second-to-second wobble of throughput. */
const QPS_NOISE = 0.012;

/**
 * Samples that reproduce a point: whole seconds of successful requests around its QPS, and
 * latencies from a log-normal with its p50 and p99.
 */
export function samplesFor(runId: string, p: CurvePoint): LevelSamples {
  const rand = prng(seedFrom(runId, String(p.level)));
  const seconds = Math.max(3, Math.floor(p.window_s));
  const per_second_ok = Array.from({ length: seconds }, () => Math.max(0, p.qps * (1 + QPS_NOISE * normal(rand))));
  const latencies: number[] = [];
  if (p.p50_ms !== null && p.p50_ms > 0) {
    const sigma = p.p99_ms !== null && p.p99_ms > p.p50_ms ? Math.log(p.p99_ms / p.p50_ms) / 2.326 : 0.1;
    for (let i = 0; i < LATENCY_SAMPLES; i++) latencies.push(p.p50_ms * Math.exp(sigma * normal(rand)));
  }
  return { level: p.level, per_second_ok, latencies };
}

/**
 * The API's names for groups in sentences: the release, plus the first run's name (or id) when two
 * compared groups share it, `×N` for repeats.
 */
function groupLabel(group: RunDetail[], all: RunDetail[][]): string {
  const first = group[0]!.run;
  const clash = all.filter((g) => g[0]?.run.release === first.release).length > 1;
  const repeats = group.length > 1 ? ` ×${group.length}` : '';
  return `${clash ? `${first.release} (${first.name || first.id.slice(0, 8)})` : first.release}${repeats}`;
}

function groupOf(details: RunDetail[], all: RunDetail[][]): RunGroup {
  const label = groupLabel(details, all);
  return {
    label,
    runs: details.map((detail) => ({
      label,
      run_id: detail.run.id,
      curve: detail.curve,
      knee: detail.analysis.knee?.level ?? null,
      knee_bracket: detail.analysis.knee?.bracket ?? null,
      samples: detail.curve.filter((p) => !p.in_progress).map((p) => samplesFor(detail.run.id, p)),
      flags: levelFlags(detail.curve, detail.analysis.littles_law, detail.run.parameter),
    })),
  };
}

/** `GET /api/v1/compare`, as the API computes it: a base group (usually one run) against head groups. */
export function buildComparison(base: RunDetail[], heads: RunDetail[][], query: Pick<CompareQuery, 'min_effect'>): CompareResponse {
  const all = [base, ...heads];
  const b = groupOf(base, all);
  return {
    base: base[0]!.run,
    base_runs: base.map((d) => d.run),
    heads: heads.map((head) => ({
      run: head[0]!.run,
      runs: head.map((d) => d.run),
      ...compareGroups(b, groupOf(head, all), { minEffect: query.min_effect, seed: seedFrom(...[...base, ...head].map((d) => d.run.id)), parameter: base[0]!.run.parameter }),
    })),
    settings: { confidence: DEFAULT_CONFIDENCE, min_effect: query.min_effect, resamples: DEFAULT_RESAMPLES },
  };
}

/** `GET /api/v1/compare.md`: the links point at the web origin, as the API's do. */
export function comparisonMarkdown(report: CompareResponse, query: CompareQuery, web: string | null): string {
  const qs = new URLSearchParams([['base', formatRunGroupRef(query.base)], ...query.head.map((h): [string, string] => ['head', formatRunGroupRef(h)])]).toString();
  const links = web ? { view: `${web}/compare?${qs}`, svg: `${web}/api/v1/compare.svg?${qs}` } : {};
  return compareMarkdown(report, report.base.parameter, links);
}

const CSV_COLUMNS = ['level', 'qps', 'p50_ms', 'p90_ms', 'p99_ms', 'p999_ms', 'requests', 'errors', 'window_s'] as const;

export function curveCsv(curve: CurvePoint[]): string {
  const rows = curve.map((p) => CSV_COLUMNS.map((c) => (p[c] === null ? '' : String(p[c]))).join(','));
  return `${[CSV_COLUMNS.join(','), ...rows].join('\n')}\n`;
}

/** The fixture does not draw: the web app only links to these images. */
export function placeholderSvg(title: string): string {
  const safe = title.replace(/[<>&"']/g, '');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="960" height="380" viewBox="0 0 960 380"><rect width="960" height="380" fill="#fff"/><text x="16" y="24">${safe}</text></svg>\n`;
}
