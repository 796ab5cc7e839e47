import { processCpuMs } from './cpu-burn.ts';

/** The content type Prometheus expects from a text-format endpoint. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * `GET /metrics` in the Prometheus text format: the two series every Prometheus client library
 * exports (so Kneeboard's default selectors read them with no configuration) and the requests served.
 * Written by hand: prom-client is not in the workspace and four series do not need it.
 */
export function formatMetrics(requestsServed: number): string {
  const cpuSeconds = processCpuMs() / 1000;
  return [
    '# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.',
    '# TYPE process_cpu_seconds_total counter',
    // eslint-disable-next-line no-restricted-syntax -- Prometheus exposition text, not a figure for people
    `process_cpu_seconds_total ${cpuSeconds.toFixed(6)}`,
    '# HELP process_resident_memory_bytes Resident memory size in bytes.',
    '# TYPE process_resident_memory_bytes gauge',
    `process_resident_memory_bytes ${process.memoryUsage.rss()}`,
    '# HELP demo_target_requests_served_total Requests answered through the slots since start.',
    '# TYPE demo_target_requests_served_total counter',
    `demo_target_requests_served_total ${requestsServed}`,
    '',
  ].join('\n');
}
