import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Run, type CreateRunBody, type RunStatus } from '@kneeboard/contracts';
import { insertSettings, type Db } from '../db.ts';

const RUN_COLUMNS = `
  id, service, name, release, git_sha, load_model, parameter, tags, labels, note, agent_host, agent_cores, status,
  toUnixTimestamp64Milli(created_at) AS created_at,
  if(finished_at IS NULL, NULL, toUnixTimestamp64Milli(assumeNotNull(finished_at))) AS finished_at`;

/** ClickHouse returns 64-bit integers as strings: parse, don't cast. */
const RunRow = Run.extend({
  created_at: z.coerce.number(),
  finished_at: z.coerce.number().nullable(),
  agent_cores: z.coerce.number().int().nullable(),
});

export async function insertRun(db: Db, body: CreateRunBody, now = Date.now()): Promise<Run> {
  const run: Run = {
    id: randomUUID(),
    service: body.service,
    // No invented name: one made of service and release would only repeat them beside themselves.
    name: body.name ?? '',
    release: body.release,
    git_sha: body.git_sha ?? null,
    load_model: body.load_model,
    parameter: body.parameter,
    tags: body.tags,
    labels: [],
    note: '',
    agent_host: body.agent_host ?? null,
    agent_cores: body.agent_cores ?? null,
    status: 'running',
    created_at: now,
    finished_at: null,
  };
  await writeRun(db, run);
  return run;
}

async function writeRun(db: Db, run: Run): Promise<void> {
  await db.writes.run(() =>
    db.client.insert({ table: 'kb_runs_v1', values: [run], format: 'JSONEachRow', clickhouse_settings: insertSettings() }),
  );
}

export async function getRun(db: Db, id: string): Promise<Run | null> {
  const result = await db.client.query({
    query: `SELECT ${RUN_COLUMNS} FROM kb_runs_v1 FINAL WHERE id = {id:UUID}`,
    query_params: { id },
    format: 'JSONEachRow',
  });
  const rows = z.array(RunRow).parse(await result.json());
  return rows[0] ?? null;
}

/**
 * Marks a run finished or aborted. A run finished before is left as it was (first finish time and
 * status kept) and reported with `before: true`, for the caller's rules on repeated finishes.
 * `span`: the test's own start (and end), replacing the API's clock — an import's file times.
 */
export async function finishRun(
  db: Db,
  id: string,
  status: Exclude<RunStatus, 'running'>,
  now = Date.now(),
  span: { started_at?: number | undefined; finished_at?: number | undefined } = {},
): Promise<{ run: Run; before: boolean } | null> {
  const run = await getRun(db, id);
  if (!run) return null;
  if (run.status !== 'running') return { run, before: true };
  // Whole ms (the column's precision), rounded outwards: the run spans every request of its span.
  const created_at = span.started_at === undefined ? run.created_at : Math.floor(span.started_at);
  const finished_at = span.finished_at === undefined ? Math.max(now, created_at) : Math.ceil(span.finished_at);
  const finished: Run = { ...run, status, created_at, finished_at };
  await writeRun(db, finished);
  return { run: finished, before: false };
}

/** Replaces a run's labels and/or note; the rest of the run is unchanged. */
export async function updateRun(db: Db, id: string, change: { labels?: string[] | undefined; note?: string | undefined }): Promise<Run | null> {
  const run = await getRun(db, id);
  if (!run) return null;
  const updated: Run = { ...run, labels: change.labels ?? run.labels ?? [], note: change.note ?? run.note ?? '' };
  await writeRun(db, updated);
  return updated;
}

export interface ListRunsFilter {
  service?: string | undefined;
  release?: string | undefined;
  status?: RunStatus | undefined;
  limit: number;
}

export async function listRuns(db: Db, filter: ListRunsFilter): Promise<Run[]> {
  const result = await db.client.query({
    query: `SELECT ${RUN_COLUMNS} FROM kb_runs_v1 FINAL
            WHERE ({service:String} = '' OR service = {service:String})
              AND ({release:String} = '' OR release = {release:String})
              AND ({status:String} = '' OR status = {status:String})
            ORDER BY created_at DESC, id
            LIMIT {limit:UInt32}`,
    query_params: { service: filter.service ?? '', release: filter.release ?? '', status: filter.status ?? '', limit: filter.limit },
    format: 'JSONEachRow',
  });
  return z.array(RunRow).parse(await result.json());
}
