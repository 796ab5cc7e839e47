import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ListRunsResponse } from '@kneeboard/contracts';
import type { ApiProcess } from './real-api.ts';

/** Per level, the requests the API counts in each step's window (what the curve shows). */
export async function storedCounts(api: ApiProcess, runId: string): Promise<Record<number, number>> {
  const detail = await api.run(runId);
  return Object.fromEntries(detail.curve.map((p) => [p.level, p.requests]));
}

export const total = (counts: Record<number, number>): number => Object.values(counts).reduce((a, b) => a + b, 0);

/** Runs of a service/release carrying the import tag `key`. */
export async function runsWithKey(api: ApiProcess, service: string, release: string, key: string): Promise<string[]> {
  const res = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs?service=${service}&release=${release}`)).json());
  return res.runs.filter((r) => r.tags.kneeboard_import === key).map((r) => r.id);
}

/** An independent count of a k6 JSON file's requests: every complete line through JSON.parse. */
export function k6Requests(path: string, metric = 'http_req_duration'): number {
  const Line = z.object({ metric: z.string(), type: z.string() });
  let n = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    try {
      const l = Line.parse(JSON.parse(line));
      if (l.type === 'Point' && l.metric === metric) n += 1;
    } catch {
      // not a whole k6 line
    }
  }
  return n;
}

/** Within `rel` (0.01 = 1 %) of `expected`. */
export function near(actual: number | null, expected: number, rel: number): boolean {
  return actual !== null && Math.abs(actual - expected) <= rel * Math.abs(expected);
}

/** The q-quantile with linear interpolation between order statistics (numpy's default, k6's, the API's). */
export function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = q * (sorted.length - 1);
  const lo = Math.floor(i);
  return sorted[lo]! + (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!) * (i - lo);
}
