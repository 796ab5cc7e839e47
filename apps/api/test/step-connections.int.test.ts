import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, RunDetail } from '@kneeboard/contracts';
import { batchOf, createRun, postJson, STORAGE_MODES, startTestApi, type TestApi } from './helpers.ts';

const T0 = 1_800_000_000_000;
const window = (level: number, i: number) => ({ level, started_at: T0 + i * 12_000, measure_from: T0 + i * 12_000 + 2_000, ended_at: T0 + i * 12_000 + 11_000 });

describe.each(STORAGE_MODES)("a step's connections: opened, TLS handshake p50/p99/max (%s)", (mode) => {
  let api: TestApi;
  let runId: string;
  beforeAll(async () => {
    api = await startTestApi({ mode });
    runId = await createRun(api.url, { service: 'conn-svc', release: 'v1' });
  }, 120_000);
  afterAll(async () => api.close());

  const detail = async () => RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json());

  it('round-trips into the run detail per level; a step without it (an older agent) has none; plain HTTP: handshakes null', async () => {
    const tls = { opened: 16, handshake_p50_ms: 1.25, handshake_p99_ms: 7.5, handshake_max_ms: 9.75 };
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, window(1, 0))).status).toBe(200);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { ...window(2, 1), connections: tls })).status).toBe(200);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { ...window(4, 2), connections: { opened: 4 } })).status).toBe(200);
    const steps = (await detail()).steps;
    expect(steps.map((s) => s.level)).toEqual([1, 2, 4]);
    expect('connections' in steps[0]!).toBe(false);
    expect(steps[1]!.connections).toEqual(tls);
    expect(steps[2]!.connections).toEqual({ opened: 4, handshake_p50_ms: null, handshake_p99_ms: null, handshake_max_ms: null });
  });

  it("the curve CSV gets the four columns only for a run whose steps carry them, empty cells where a step has none", async () => {
    // One request in each level's measured window.
    const rows = [1, 2, 4].map((level, i) => ({ level, ts: T0 + i * 12_000 + 3_000, latency: 5 }));
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, batchOf(rows, 'conn-csv'))).status).toBe(200);
    const csv = (await (await fetch(`${api.url}/api/v1/runs/${runId}/curve.csv`)).text()).trim().split('\n');
    const header = csv[0]!.split(',');
    expect(header.slice(-4)).toEqual(['connections_opened', 'handshake_p50_ms', 'handshake_p99_ms', 'handshake_max_ms']);
    expect(csv.slice(1).map((line) => line.split(',').slice(-4).join(','))).toEqual([',,,', '16,1.25,7.5,9.75', '4,,,']);

    const plain = await createRun(api.url, { service: 'conn-svc', release: 'v0' });
    expect((await postJson(`${api.url}/api/v1/runs/${plain}/steps`, window(1, 0))).status).toBe(200);
    expect((await postJson(`${api.url}/api/v1/runs/${plain}/events`, batchOf([{ level: 1, ts: T0 + 3_000, latency: 5 }], 'plain-csv'))).status).toBe(200);
    const plainHeader = (await (await fetch(`${api.url}/api/v1/runs/${plain}/curve.csv`)).text()).split('\n')[0]!;
    expect(plainHeader).not.toContain('connections_opened');
  });

  it('bad values are a 400 naming the field, and nothing is written', async () => {
    const bad: Array<[unknown, string]> = [
      [{ opened: -1 }, 'connections.opened'],
      [{ opened: 1.5 }, 'connections.opened'],
      [{ opened: 2e9 }, 'connections.opened'],
      [{ opened: 3, handshake_p99_ms: -2 }, 'connections.handshake_p99_ms'],
      [{ opened: 3, handshake_p50_ms: 'fast' }, 'connections.handshake_p50_ms'],
      [{ opened: 3, handshake_max_ms: 3_600_000 }, 'connections.handshake_max_ms'],
      [{ handshake_p50_ms: 1 }, 'connections.opened'],
    ];
    for (const [connections, field] of bad) {
      const res = await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { ...window(8, 3), connections });
      expect(res.status, JSON.stringify(connections)).toBe(400);
      expect(ApiError.parse(res.body).field, JSON.stringify(connections)).toBe(field);
    }
    expect((await detail()).steps.map((s) => s.level)).toEqual([1, 2, 4]);
  });
});
