import { z } from 'zod';
import type { Db } from '../db.ts';

export interface ExpiryRule {
  /** Runs that ended (or, never finished, started) before this epoch ms have expired; null: never. */
  defaultCutoffMs: number | null;
  /** Per service, overriding the default (null: this service's runs never expire). */
  services: ReadonlyArray<{ service: string; cutoffMs: number | null }>;
  /** Runs carrying this label are kept whatever their age. */
  keepLabel: string;
  limit: number;
}

const Row = z.object({ id: z.string() });

/**
 * Runs past their service's retention, oldest first: ended (finished_at, or created_at for a run
 * that never finished) before the cutoff, and not labelled to be kept. One query for every rule.
 * An import's run carries its file's own times, which may be older than the cutoff on the day it is
 * imported: a run's age counts from the later of its end and its last write here (the row version
 * is the server's clock in µs), so a file imported today is kept as long as a run swept today.
 */
export async function listExpiredRuns(db: Db, rule: ExpiryRule): Promise<string[]> {
  // A cutoff of 0 keeps everything: no run ended before 1970.
  const cutoff = (ms: number | null) => ms ?? 0;
  const result = await db.client.query({
    query: `SELECT toString(id) AS id FROM kb_runs_v1 FINAL
            WHERE NOT has(labels, {keep:String})
              AND greatest(toUnixTimestamp64Milli(coalesce(finished_at, created_at)), intDiv(version, 1000)) <
                  if(has({services:Array(String)}, service), {cutoffs:Array(Int64)}[indexOf({services:Array(String)}, service)], {default_cutoff:Int64})
            ORDER BY greatest(toUnixTimestamp64Milli(coalesce(finished_at, created_at)), intDiv(version, 1000))
            LIMIT {limit:UInt32}`,
    query_params: {
      keep: rule.keepLabel,
      services: rule.services.map((s) => s.service),
      cutoffs: rule.services.map((s) => cutoff(s.cutoffMs)),
      default_cutoff: cutoff(rule.defaultCutoffMs),
      limit: rule.limit,
    },
    format: 'JSONEachRow',
  });
  return z.array(Row).parse(await result.json()).map((r) => r.id);
}
