import { performance } from 'node:perf_hooks';
import { upsertStep, writeFleetAgent, writeFleetSteps, type Db } from '@kneeboard/clickhouse';
import type { IngestService } from '../ingest/ingest-service.ts';
import type { LiveHub } from '../live/live-hub.ts';
import { FleetCoordinator } from './fleet-coordinator.ts';

/** The coordinator wired to storage: step windows as any agent posts them, agents and their parts in the fleet tables. */
export function createFleetCoordinator(db: Db, hub: LiveHub, ingest: IngestService, onError: (err: unknown) => void): FleetCoordinator {
  return new FleetCoordinator(
    {
      stepWindow: async (runId, window) => {
        await upsertStep(db, runId, window);
        ingest.runs.invalidate(runId);
        hub.notify(runId);
      },
      agentSteps: (rows) => writeFleetSteps(db, rows),
      agent: (row) => writeFleetAgent(db, row),
    },
    // Sub-millisecond epoch time: the barrier and the clock exchange are judged in milliseconds.
    { now: () => performance.timeOrigin + performance.now(), onError },
  );
}
