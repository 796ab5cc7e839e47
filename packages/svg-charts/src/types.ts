export interface SeriesPoint {
  level: number;
  qps: number | null;
  p50_ms: number | null;
  p99_ms: number | null;
}

export interface ChartSeries {
  label: string;
  colour: string;
  /** Base runs are drawn dashed, heads solid. */
  dashed: boolean;
  points: SeriesPoint[];
}

export interface CurveChartInput {
  title: string;
  subtitle?: string;
  /** The swept parameter, for the x axis: "concurrency", "threads"… */
  parameter: string;
  series: ChartSeries[];
  /** A vertical marker, e.g. the knee. */
  marker?: { level: number; label: string } | null;
  width?: number;
  height?: number;
}
