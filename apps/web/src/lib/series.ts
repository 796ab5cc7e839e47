/**
 * Every series the run page draws, with one colour each, so a percentile or a latency component has
 * the same colour in every chart, legend and table header. Colours are from a colour-blind-safe
 * palette (Okabe–Ito) with enough contrast on white.
 */

export const QPS_SERIES = { key: 'qps', label: 'Throughput', unit: 'req/s', color: '#1f4e8c' } as const;

export const LATENCY_SERIES = [
  { key: 'p50_ms', label: 'p50', color: '#0072b2', defaultOn: true },
  { key: 'p90_ms', label: 'p90', color: '#009e73', defaultOn: false },
  { key: 'p99_ms', label: 'p99', color: '#d55e00', defaultOn: true },
  { key: 'p999_ms', label: 'p99.9', color: '#cc79a7', defaultOn: false },
] as const;
export type LatencyKey = (typeof LATENCY_SERIES)[number]['key'];

/** The p50 latency split, bottom to top of the stack. */
export const SPLIT_SERIES = [
  { key: 'compute', label: 'compute p50', color: '#0072b2', hint: 'server-side work (Server-Timing compute)' },
  { key: 'queue', label: 'queue p50', color: '#e69f00', hint: 'waiting inside the server (Server-Timing queue)' },
  { key: 'other', label: 'other p50', color: '#8c96a3', hint: 'latency − compute − queue: interface and network' },
] as const;
export type SplitKey = (typeof SPLIT_SERIES)[number]['key'];

/**
 * The USL fit over the measured throughput: the throughput blue's light tone (Okabe–Ito sky blue),
 * dashed, so it reads as "the model of the same quantity" and never as a second measurement.
 */
export const USL_SERIES = { key: 'usl', label: 'USL fit', color: '#56b4e9', dash: '6 4' } as const;

/** The knee marker: an annotation, not data, so a calm dark neutral rather than a series colour. */
export const KNEE_STYLE = { color: '#3d4754', label: 'knee' } as const;

/**
 * The base run of a comparison is drawn dashed, heads solid. The runs' colours are not here: they
 * are `@kneeboard/svg-charts`' palette (`colourFor`), the one the API's `compare.svg` uses, so a run
 * has the same colour in the page, its exports and a pull request's image.
 */
export const BASE_DASH = '7 4';
