import { performance } from 'node:perf_hooks';
import { upsertStep, writeFleetAgent, writeFleetSteps, type Db } from '@kneeboard/clickhouse';
import type { IngestService } from '../ingest/ingest-service.ts';
import type { LiveHub } from '../live/live-hub.ts';
import { FleetCoordinator } from './fleet-coordinator.ts';

/**
 * The coordinator wired to storage: step windows as any agent posts them, agents and their parts in
 * the fleet tables. A deleted run's plan is dropped when the deletion tells the run's watchers (the
 * DELETE handler's notify, once the rows are gone); until then, while the deletion runs, nothing more
 * is written for it — rows written after its purge would outlive the run.
 */
export function createFleetCoordinator(db: Db, hub: LiveHub, ingest: IngestService, onError: (err: unknown) => void): FleetCoordinator {
  const live = (runId: string) => !ingest.isDeleted(runId);
  const coordinator = new FleetCoordinator(
    {
      stepWindow: async (runId, window) => {
        if (!live(runId)) return;
        await upsertStep(db, runId, window);
        ingest.runs.invalidate(runId);
        hub.notify(runId);
      },
      agentSteps: async (rows) => {
        const kept = rows.filter((r) => live(r.run_id));
        if (kept.length > 0) await writeFleetSteps(db, kept);
      },
      agent: async (row) => {
        if (live(row.run_id)) await writeFleetAgent(db, row);
      },
    },
    // Sub-millisecond epoch time: the barrier and the clock exchange are judged in milliseconds.
    { now: () => performance.timeOrigin + performance.now(), onError },
  );
  hub.onChange((runId) => {
    if (!live(runId)) coordinator.drop(runId);
  });
  return coordinator;
}
