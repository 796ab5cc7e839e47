import { performance } from 'node:perf_hooks';
import { appendFleetLog, markFleetSeen, readFleetLog, readFleetSeen, recentFleetPlans, writeFleetAgent, writeFleetSteps, type Db } from '@kneeboard/clickhouse';
import type { StepWindow } from '@kneeboard/contracts';
import type { IngestService } from '../ingest/ingest-service.ts';
import type { LiveHub } from '../live/live-hub.ts';
import { FleetCoordinator, type FleetStore } from './fleet-coordinator.ts';
import { FleetFact, type LoggedFact } from './fleet-machine.ts';

/**
 * The coordinator wired to ClickHouse: the plan's facts in kb_fleet_log_v1, agents' last signs of
 * life in kb_fleet_seen_v1, step windows as any agent posts them, agents and their parts in the
 * fleet tables. A deleted run's plan is dropped when the deletion tells the run's watchers (the
 * DELETE handler's notify, once the rows are gone); until then, while the deletion runs, nothing more
 * is written for it — rows written after its purge would outlive the run.
 */
export function createFleetCoordinator(db: Db, hub: LiveHub, ingest: IngestService, onError: (err: unknown) => void): FleetCoordinator {
  const deleted = (runId: string) => ingest.isDeleted(runId);
  const store: FleetStore = {
    append: (runId, facts) => appendFleetLog(db, runId, facts.map((f) => ({ at_ms: f.at, id: f.id, kind: f.fact.kind, body: JSON.stringify(f.fact) }))),
    read: async (runId) => {
      const facts: LoggedFact[] = [];
      for (const row of await readFleetLog(db, runId)) {
        // Parsed, not trusted: a fact this version cannot read is left out and said, not folded half-understood.
        const parsed = FleetFact.safeParse(JSON.parse(row.body));
        if (parsed.success) facts.push({ at: row.at_ms, id: row.id, fact: parsed.data });
        else onError(new Error(`run ${runId}: fleet fact ${row.id} (${row.kind}) cannot be read: ${parsed.error.message}`));
      }
      return facts;
    },
    markSeen: async (runId, agentIds, at) => {
      if (!deleted(runId)) await markFleetSeen(db, runId, agentIds, at);
    },
    seen: (runId) => readFleetSeen(db, runId),
    recentPlans: (since) => recentFleetPlans(db, since),
    isDeleted: deleted,
    write: async (effect) => {
      switch (effect.kind) {
        case 'window':
          return stepWindow(effect.runId, effect.window);
        case 'agent-steps':
          if (deleted(effect.runId)) return;
          await writeFleetSteps(db, effect.rows);
          return stepWindow(effect.runId, effect.window);
        case 'agents':
          for (const row of effect.rows) if (!deleted(row.run_id)) await writeFleetAgent(db, row);
          return;
      }
    },
  };
  // Through the write path, which tells the live views (and every other listener) the run changed.
  async function stepWindow(runId: string, window: StepWindow): Promise<void> {
    if (deleted(runId)) return;
    await ingest.recordStep(runId, window);
  }
  // The wall clock, read afresh each time. Not performance.timeOrigin + performance.now(): that is
  // the wall clock at start-up plus a monotonic clock, which stops while the machine is suspended
  // (a laptop's lid, a paused VM), so a long-lived API would fall seconds behind every agent that
  // started since, and hand out barriers they wait for in vain (seen on CI: 14.6 s). Date.now()'s
  // millisecond is fine grain enough: barriers are judged to 50 ms, offsets to a few.
  // Booted when the process started, before the seconds its modules and migrations take: what
  // another replica stored meanwhile shows the API was up while this one started.
  const coordinator = new FleetCoordinator(store, { now: () => Date.now(), bootedAt: performance.timeOrigin, onError });
  hub.onChange((runId) => {
    if (deleted(runId)) coordinator.drop(runId);
  });
  return coordinator;
}
