import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchBody, createRecorder, KneeboardApi, replaySpool, RunSpool } from '@kneeboard/agent-sdk';
import { countRequests } from '@kneeboard/clickhouse';
import { allocateColumns } from '@kneeboard/event-wire';
import { startTestApi, type TestApi } from './helpers.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api?.close());

describe('the agent SDK against the real API: Arrow by default, exactly once through its spool', () => {
  it('records, sends Arrow, and a spooled copy of a delivered batch is stored once on replay', async () => {
    const spoolDir = mkdtempSync(join(tmpdir(), 'kb-sdk-arrow-'));
    const ids: string[] = [];
    const recorder = await createRecorder({ api: api.url, run: { service: 'sdk', release: 'arrow' }, spoolDir, maxBatchEvents: 1_000, newBatchId: () => `b-${ids.push(String(ids.length)) - 1}` });
    const step = recorder.step(4);
    const { startedAt } = step.start();
    for (let i = 0; i < 3_500; i++) recorder.record({ level: 4, latencyMs: 1 + (i % 50), computeMs: i % 10 === 0 ? null : 0.5, status: i % 100 === 0 ? 503 : 200, tsMs: startedAt + i });
    await step.end();
    const report = await recorder.finish();
    // Everything delivered, the finish included (awaiting step.end() just before finish() once left it behind).
    expect(report).toMatchObject({ recorded: 3_500, uploaded: 3_500, batches: 4, lostEvents: 0, spooledEntries: 0 });
    expect(await countRequests(api.db, recorder.runId)).toBe(3_500);
    const nulls = await api.db.client.query({ query: 'SELECT countIf(compute_ms IS NULL) AS n FROM kb_request_events_v1 WHERE run_id = {run:UUID}', query_params: { run: recorder.runId }, format: 'JSONEachRow' });
    expect(Number(((await nulls.json()) as Array<{ n: string }>)[0]?.n)).toBe(350);

    // An agent killed after the API's answer but before it deleted the file leaves the batch in its
    // spool: the replay sends the same batch id, and the API stores nothing again.
    const columns = allocateColumns(2);
    columns.level.fill(4);
    columns.ts_ms.set([startedAt + 1, startedAt + 2]);
    columns.status.fill(200);
    const spool = await RunSpool.open(spoolDir, recorder.runId);
    const client = new KneeboardApi({ baseUrl: api.url });
    try {
      expect(await client.postEventColumns(recorder.runId, 'twice', 'agent-x', columns)).toEqual({ accepted: 2, duplicate: false });
      await spool.write(1, 'events', batchBody('arrow', 'twice', 'agent-x', columns));
      await spool.close();
      expect(readdirSync(join(spoolDir, recorder.runId))).toEqual(['000000000001.events.arrow']);
      const replay = await replaySpool({ api: client, spoolDir });
      expect(replay).toMatchObject({ delivered: 1, duplicateBatches: 1, events: 0, rejected: 0 });
      expect(await countRequests(api.db, recorder.runId)).toBe(3_502);
    } finally {
      await client.close();
    }
  });
});
