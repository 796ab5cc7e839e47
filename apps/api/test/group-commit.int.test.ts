import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchToken, countRequests, countRollupRequests, GroupCommit, readLedger, reconcileLedger, writeLedger, type GroupMember, type LedgerEntry } from '@kneeboard/clickhouse';
import { buildApp } from '../src/app.ts';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
import { arrowOf, randomBatch, stepAt } from './ingest-support.ts';

/** The embedded engine's group commit: several batches, one insert, each batch still stored exactly once. */
describe('group commit on the embedded engine', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ mode: 'embedded' });
  });
  afterAll(async () => api?.close());

  async function newRun(): Promise<string> {
    const runId = await createRun(api.url);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);
    return runId;
  }

  function member(runId: string, batchId: string, agentId: string, n: number, seed: number): GroupMember {
    const b = randomBatch(batchId, n, seed);
    return {
      insert: { runId, batchId, agentId, arrow: arrowOf(b) },
      ledger: { run_id: runId, batch_id: batchId, agent_id: agentId, events: n, content_hash: `h-${batchId}`, received_at: Date.now() },
      rows: n,
    };
  }

  async function rowsByAgent(runId: string): Promise<Record<string, number>> {
    const result = await api.db.client.query({
      query: 'SELECT agent_id, count() AS n FROM kb_request_events_v1 WHERE run_id = {run:UUID} GROUP BY agent_id ORDER BY agent_id',
      query_params: { run: runId },
      format: 'JSONEachRow',
    });
    return Object.fromEntries(((await result.json()) as Array<{ agent_id: string; n: string }>).map((r) => [r.agent_id, Number(r.n)]));
  }

  async function groupTokens(runId: string): Promise<string[]> {
    const result = await api.db.client.query({
      query: 'SELECT DISTINCT group_token FROM kb_batches_v1 WHERE run_id = {run:UUID} ORDER BY group_token',
      query_params: { run: runId },
      format: 'JSONEachRow',
    });
    return ((await result.json()) as Array<{ group_token: string }>).map((r) => r.group_token);
  }

  it('stores batches of two runs and two agents that arrive together as one insert, each row under its own run and agent', async () => {
    const [r1, r2] = [await newRun(), await newRun()];
    const commit = new GroupCommit(api.db, { maxRows: 1_000_000, lingerMs: 5_000 });
    const members = [member(r1, 'a', 'agent-1', 300, 1), member(r1, 'b', 'agent-2', 200, 2), member(r2, 'c', 'agent-1', 100, 3), member(r2, 'd', 'agent-2', 50, 4)];
    // All four are announced before the first is submitted, as their requests would be: the insert waits for the last.
    const arrivals = members.map(() => commit.expect());
    await Promise.all(members.map((m, i) => commit.submit(m, arrivals[i])));
    expect(commit.stats).toEqual({ groups: 1, batches: 4 });
    expect(await rowsByAgent(r1)).toEqual({ 'agent-1': 300, 'agent-2': 200 });
    expect(await rowsByAgent(r2)).toEqual({ 'agent-1': 100, 'agent-2': 50 });
    expect(await countRollupRequests(api.db, r1)).toBe(500);
    expect(await countRollupRequests(api.db, r2)).toBe(150);
    // One group token on every ledger row of both runs, written with the events.
    const [t1, t2] = [await groupTokens(r1), await groupTokens(r2)];
    expect(t1).toHaveLength(1);
    expect(t1[0]).toMatch(/^group:/);
    expect(t2).toEqual(t1);
    expect((await readLedger(api.db, r1)).map((r) => [r.batch_id, r.events])).toEqual([
      ['a', 300],
      ['b', 200],
    ]);
  });

  it('closes a group at maxRows, and a lone batch goes in alone under its own batch token', async () => {
    const runId = await newRun();
    // The groups are decided by the rows waiting, not by time; the last one waits lingerMs, once, for senders that left.
    const commit = new GroupCommit(api.db, { maxRows: 250, lingerMs: 50 });
    const members = Array.from({ length: 5 }, (_, i) => member(runId, `m${i}`, 'agent', 100, 10 + i));
    const arrivals = members.map(() => commit.expect());
    await Promise.all(members.map((m, i) => commit.submit(m, arrivals[i])));
    // 100 + 100 fits 250, a third would not: groups of 2, 2 and 1.
    expect(commit.stats).toEqual({ groups: 3, batches: 5 });
    expect(await countRequests(api.db, runId)).toBe(500);

    const lone = await newRun();
    await new GroupCommit(api.db, { maxRows: 1_000, lingerMs: 5_000 }).submit(member(lone, 'alone', 'agent', 40, 20));
    expect(await groupTokens(lone)).toEqual([batchToken(lone, 'alone')]);
    expect(await countRequests(api.db, lone)).toBe(40);
  });

  it('reconciles a ledger whose newest group never landed: its rows go, and nothing else', async () => {
    const runId = await newRun();
    const commit = new GroupCommit(api.db, { maxRows: 1_000_000, lingerMs: 5_000 });
    await commit.submit(member(runId, 'landed', 'agent', 120, 30));
    // A process that died between a group's ledger rows and its events left these.
    const now = Date.now() + 1_000;
    const lost: LedgerEntry[] = ['lost-1', 'lost-2'].map((batch_id) => ({ run_id: runId, batch_id, agent_id: 'agent', events: 70, content_hash: `h-${batch_id}`, received_at: now, group_token: 'group:lost' }));
    await writeLedger(api.db, lost);
    expect(await reconcileLedger(api.db, runId)).toEqual(['lost-1', 'lost-2']);
    expect((await readLedger(api.db, runId)).map((r) => r.batch_id)).toEqual(['landed']);
    // Ledger and events agree now: a second pass removes nothing.
    expect(await reconcileLedger(api.db, runId)).toEqual([]);

    // A shortfall that is not exactly the newest group's is another failure: left alone.
    const odd = await newRun();
    await writeLedger(api.db, [{ run_id: odd, batch_id: 'x', agent_id: 'agent', events: 10, content_hash: 'h', received_at: now, group_token: '' }]);
    await writeLedger(api.db, [{ run_id: odd, batch_id: 'y', agent_id: 'agent', events: 5, content_hash: 'h', received_at: now + 1, group_token: 'group:y' }]);
    expect(await reconcileLedger(api.db, odd)).toEqual([]);
    expect((await readLedger(api.db, odd)).map((r) => r.batch_id).sort()).toEqual(['x', 'y']);
  });

  it('takes back the ledger rows of a group whose insert fails, so its batches sent again are stored', async () => {
    const runId = await newRun();
    const commit = new GroupCommit(api.db, { maxRows: 1_000_000, lingerMs: 5_000 });
    const good = member(runId, 'good', 'agent', 80, 50);
    // Not an Arrow stream: the engine refuses the whole insert, after the ledger rows were written.
    const broken = { ...member(runId, 'broken', 'agent', 80, 51), insert: { runId, batchId: 'broken', agentId: 'agent', arrow: new Uint8Array([1, 2, 3, 4]) } };
    const arrivals = [commit.expect(), commit.expect()];
    const outcomes = await Promise.allSettled([commit.submit(good, arrivals[0]), commit.submit(broken, arrivals[1])]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await countRequests(api.db, runId)).toBe(0);
    expect(await readLedger(api.db, runId)).toEqual([]);
    await commit.submit(good);
    expect(await countRequests(api.db, runId)).toBe(80);
    expect((await readLedger(api.db, runId)).map((r) => r.batch_id)).toEqual(['good']);
  });

  it('stores, in the next process, a batch whose group was cut short by a crash, instead of calling it a duplicate', async () => {
    const runId = await newRun();
    const b = randomBatch('cut', 600, 40);
    await writeLedger(api.db, [{ run_id: runId, batch_id: 'cut', agent_id: b.agent_id, events: 600, content_hash: 'whatever', received_at: Date.now(), group_token: 'group:cut' }]);
    const next = await buildApp({ db: api.db });
    const url = await next.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect((await postJson(`${url}/api/v1/runs/${runId}/events`, b)).body).toEqual({ accepted: 600, duplicate: false });
      expect((await postJson(`${url}/api/v1/runs/${runId}/events`, b)).body).toEqual({ accepted: 0, duplicate: true });
      expect(await countRequests(api.db, runId)).toBe(600);
      expect(await countRollupRequests(api.db, runId)).toBe(600);
    } finally {
      await next.close();
    }
  });
});
