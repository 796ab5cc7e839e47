import type { FastifyInstance } from 'fastify';
import { deleteRun, deletedRunsWithRows, listExpiredRuns, purgeRun, type Db } from '@kneeboard/clickhouse';

const DAY_MS = 86_400_000;

/** The label that keeps a run whatever its age (set with PATCH /runs/{id} `labels`, or in the UI). */
export const PIN_LABEL = 'pinned';

export interface RetentionPolicy {
  /** Days a run is kept after it ended; null: forever. */
  defaultDays: number | null;
  /** Per service, overriding the default (null: forever). */
  services: ReadonlyArray<{ service: string; days: number | null }>;
  /** How often to look for expired runs. */
  sweepEveryMs: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = { defaultDays: 90, services: [], sweepEveryMs: 3_600_000 };

/** Runs deleted per sweep at most: each is a few mutations, and the next sweep takes the rest. */
const PER_SWEEP = 100;

/**
 * Deletes the runs past their service's retention — raw events, rollup, ledger, steps and the run,
 * as DELETE /runs/{id} does — except runs labelled `pinned`, and finishes deletions that were cut
 * short. Returns the ids of the expired runs deleted.
 *
 * Why a sweep and not a ClickHouse TTL: a TTL expression sees only its own row, and the raw rows
 * carry neither the service nor the pin (ClickHouse 26.7 refuses dictGet in a TTL as
 * non-deterministic), while a fixed TTL on event time would delete pinned baselines too.
 */
export async function sweepRetention(db: Db, policy: RetentionPolicy, now = Date.now(), onDeleted: (runId: string) => void = () => undefined): Promise<string[]> {
  const cutoff = (days: number | null) => (days === null ? null : now - days * DAY_MS);
  // Deletions cut short (a full disk, a crash, a write another replica had under way) first: their
  // runs are already refused everywhere, only rows are left to remove.
  for (const runId of await deletedRunsWithRows(db, PER_SWEEP)) {
    await purgeRun(db, runId);
    onDeleted(runId);
  }
  if (policy.defaultDays === null && policy.services.every((s) => s.days === null)) return [];
  const expired = await listExpiredRuns(db, {
    defaultCutoffMs: cutoff(policy.defaultDays),
    services: policy.services.map((s) => ({ service: s.service, cutoffMs: cutoff(s.days) })),
    keepLabel: PIN_LABEL,
    limit: PER_SWEEP,
  });
  for (const runId of expired) {
    await deleteRun(db, runId);
    onDeleted(runId);
  }
  return expired;
}

/** Sweeps a minute after start and then every `sweepEveryMs`; a failed sweep is logged and tried again next time. */
export function registerRetention(app: FastifyInstance, db: Db, policy: RetentionPolicy, onDeleted: (runId: string) => void): void {
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> | null = null;
  const sweep = () => {
    sweeping ??= sweepRetention(db, policy, Date.now(), onDeleted)
      .then((ids) => {
        if (ids.length > 0) app.log.info({ runs: ids.length }, 'retention: expired runs deleted');
      })
      .catch((err: unknown) => app.log.warn({ err }, 'retention sweep failed; trying again at the next one'))
      .finally(() => {
        sweeping = null;
      });
  };
  app.addHook('onReady', async () => {
    timer = setTimeout(function tick() {
      sweep();
      timer = setTimeout(tick, policy.sweepEveryMs).unref();
    }, Math.min(60_000, policy.sweepEveryMs)).unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearTimeout(timer);
    await sweeping;
  });
}
