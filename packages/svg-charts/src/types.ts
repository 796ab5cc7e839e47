import type { LatencyKey } from '@kneeboard/chart-prep';

export interface SeriesPoint {
  level: number;
  qps: number | null;
  p50_ms: number | null;
  p90_ms?: number | null;
  p99_ms: number | null;
  p999_ms?: number | null;
  /** Why this point is the load generator's limit, not the service's; drawn hollow with a "!". */
  flag?: string | null;
}

/** Which latency percentiles to draw: the fields chart-prep names. */
export type { LatencyKey };

export interface ChartSeries {
  label: string;
  colour: string;
  /** Base runs are drawn dashed, heads solid. */
  dashed: boolean;
  points: SeriesPoint[];
}

export interface SloThresholdMark {
  ms: number;
  label: string;
  colour: string;
}

export interface CapacityMark {
  level: number;
  label: string;
  /** The level that holds to the first that breaks; null when none broke. */
  bracket: { from: number; to: number } | null;
}

export interface CurveChartInput {
  title: string;
  subtitle?: string;
  /** The swept parameter, for the x axis: "concurrency", "threads"… */
  parameter: string;
  series: ChartSeries[];
  /** A vertical marker, e.g. the knee. */
  marker?: { level: number; label: string } | null;
  /** SLO thresholds on the latency panel: a horizontal dashed line each, labelled (`p99 ≤ 50 ms`). */
  thresholds?: SloThresholdMark[];
  /** Capacity under the SLOs on the throughput panel: a solid line at the level, the bracket up to the first level that breaks shaded. */
  capacity?: CapacityMark | null;
  /** A line under the subtitle, e.g. the capacity sentence. */
  caption?: string;
  /** Latency percentiles to draw, first solid, the rest faint. Default p50 and p99. */
  latency?: LatencyKey[];
  /** Latency axis scale. Default linear. */
  yScale?: 'linear' | 'log';
  width?: number;
  height?: number;
}
