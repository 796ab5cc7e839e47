import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ListRunsResponse, RunDetail } from '@kneeboard/contracts';
import { freePort, startServerProcess, type ServerProcess } from '../testing/spawn.ts';
import { batchOf, createRun, postJson } from './helpers.ts';
import { stepAt, T0 } from './ingest-support.ts';

/**
 * Issue 11.6: SIGKILL the API while agents stream acknowledged batches, restart it on the same data
 * directory, let the agents retry what was not acknowledged (same batch ids): every event is stored
 * exactly once — in the raw rows and in the rollup the default view reads. Bounded by counts:
 * 2 senders × 20 batches × 10,000 events (400,000, the size the rollup's shortfall was found at),
 * 3 kills, each a random 0–100 ms after its point in the stream so it lands anywhere in an insert.
 */
const SENDERS = 2;
const BATCHES_PER_SENDER = 20;
const EVENTS_PER_BATCH = 10_000;
const KILLS = 3;

const dataDir = mkdtempSync(join(tmpdir(), 'kb-sigkill-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function batch(sender: number, i: number) {
  const rows = Array.from({ length: EVENTS_PER_BATCH }, (_, k) => ({ level: 1, ts: T0 + (sender * BATCHES_PER_SENDER + i) * 2_000 + k, latency: 1 + ((k * 7) % 50) }));
  return batchOf(rows, `s${sender}-b${i}`);
}

describe('SIGKILL of the API during ingest', () => {
  it('loses no acknowledged event and doubles none once the agents have retried', async () => {
    const port = await freePort();
    const env = { KNEEBOARD_DATA_DIR: dataDir };
    let api: ServerProcess = await startServerProcess(env, 180_000, port);
    const url = api.url;
    const runId = await createRun(url, { service: 'sigkill' });
    expect((await postJson(`${url}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);

    let acked = 0;
    let ackedBeforeLastKill = 0;
    let failedAttempts = 0;
    let duplicates = 0;
    /** An agent: each batch is re-sent (same id, same content) until the API acknowledges it. */
    const sender = async (s: number) => {
      for (let i = 0; i < BATCHES_PER_SENDER; i++) {
        const body = batch(s, i);
        for (let attempt = 0; ; attempt++) {
          expect(attempt).toBeLessThan(2_000);
          try {
            const res = await postJson(`${url}/api/v1/runs/${runId}/events`, body);
            if (res.status === 200) {
              if ((res.body as { duplicate: boolean }).duplicate) duplicates++;
              acked++;
              break;
            }
            // 503 while storage restarts is retriable like a refused connection; anything else is a bug.
            expect(res.status, JSON.stringify(res.body)).toBe(503);
          } catch {
            // connection refused or reset: the API is down
          }
          failedAttempts++;
          await sleep(100);
        }
      }
    };
    const senders = Promise.all(Array.from({ length: SENDERS }, (_, s) => sender(s)));

    const total = SENDERS * BATCHES_PER_SENDER;
    for (let k = 1; k <= KILLS; k++) {
      // Kill at evenly spaced points of the stream, decided by acknowledged batches (not time).
      while (acked < (total * k) / (KILLS + 1)) await sleep(20);
      await sleep(Math.random() * 100);
      ackedBeforeLastKill = acked;
      api.child.kill('SIGKILL');
      await api.stop();
      api = await startServerProcess(env, 180_000, port);
    }
    await senders;
    try {
      expect(ackedBeforeLastKill).toBeGreaterThan(0);
      expect(failedAttempts).toBeGreaterThan(0); // the kills did interrupt the stream
      expect((await postJson(`${url}/api/v1/runs/${runId}/finish`, {})).status).toBe(200);
      const detail = RunDetail.parse(await (await fetch(`${url}/api/v1/runs/${runId}?exact=1`)).json());
      const stored = detail.curve.reduce((n, p) => n + p.requests, 0);
      console.log(`sigkill: ${KILLS} kills, ${total * EVENTS_PER_BATCH} events sent in ${total} batches, ${stored} stored, ${failedAttempts} failed attempts, ${duplicates} replays answered duplicate`);
      // 0 lost, 0 doubled.
      expect(stored).toBe(total * EVENTS_PER_BATCH);

      // The default view, the rollup and the runs list count the same events: a kill between the
      // raw part and the rollup view's rows left the rollup short, and a retry answered
      // `duplicate` never refilled it (issue 22.5). The restarted process repairs it.
      const exact = detail.curve.map((p) => ({ level: p.level, requests: p.requests, qps: p.qps }));
      for (const query of ['', '?exact=0']) {
        const view = RunDetail.parse(await (await fetch(`${url}/api/v1/runs/${runId}${query}`)).json());
        expect(view.curve.map((p) => ({ level: p.level, requests: p.requests, qps: p.qps })), `GET /runs/{id}${query}`).toEqual(exact);
      }
      const list = ListRunsResponse.parse(await (await fetch(`${url}/api/v1/runs?service=sigkill`)).json());
      const listed = list.runs.find((r) => r.id === runId);
      expect(listed?.requests).toBe(total * EVENTS_PER_BATCH);
      expect(listed?.peak_qps).toBe(Math.max(...exact.map((p) => p.qps)));
      // And so does a process started after all of it (nothing left for a later repair to change).
      await api.stop();
      api = await startServerProcess(env, 180_000, port);
      const again = RunDetail.parse(await (await fetch(`${url}/api/v1/runs/${runId}?exact=0`)).json());
      expect(again.curve.map((p) => ({ level: p.level, requests: p.requests, qps: p.qps }))).toEqual(exact);
    } finally {
      await api.stop();
    }
  }, 900_000);
});
