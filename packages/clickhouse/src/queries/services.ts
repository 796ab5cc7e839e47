import { z } from 'zod';
import type { ServiceSummary } from '@kneeboard/contracts';
import type { Db } from '../db.ts';

const ServiceRow = z.object({
  service: z.string(),
  runs: z.coerce.number(),
  releases: z.coerce.number(),
  last_run_at: z.coerce.number(),
});

export async function listServices(db: Db): Promise<ServiceSummary[]> {
  const result = await db.client.query({
    query: `SELECT service, count() AS runs, uniqExact(release) AS releases, toUnixTimestamp64Milli(max(created_at)) AS last_run_at
            FROM kb_runs_v1 FINAL GROUP BY service ORDER BY last_run_at DESC`,
    format: 'JSONEachRow',
  });
  return z.array(ServiceRow).parse(await result.json());
}
