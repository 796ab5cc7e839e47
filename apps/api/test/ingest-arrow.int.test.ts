import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Float32, Float64, Int32, Int64, Table, tableToIPC, Utf8, vectorFromArray, type DataType, type Vector } from 'apache-arrow';
import { countRequests } from '@kneeboard/clickhouse';
import { ApiError } from '@kneeboard/contracts';
import { createRun, postJson, STORAGE_MODES, startTestApi, type TestApi } from './helpers.ts';
import { arrowOf, postArrow, randomBatch, stepAt, T0 } from './ingest-support.ts';

const vec = (values: unknown[], type: DataType) => vectorFromArray(values, type);

/** A pyarrow-like stream: int64 timestamps, int32 status, float32 latency — widths the API converts. */
function streamOf(over: Record<string, Vector> = {}, drop: string[] = []): Uint8Array {
  const cols: Record<string, Vector> = {
    level: vec([2, 2, 2], new Float64()),
    ts_ms: vec([BigInt(T0 + 10), BigInt(T0 + 20), BigInt(T0 + 30)], new Int64()),
    latency_ms: vec([10.5, 12.25, 48], new Float32()),
    compute_ms: vec([9.125, 10, null], new Float64()),
    queue_ms: vec([0.25, 0.5, null], new Float64()),
    status: vec([200, 200, 0], new Int32()),
    ...over,
  };
  for (const d of drop) delete cols[d];
  return tableToIPC(new Table(cols), 'stream');
}

describe.each(STORAGE_MODES)('Arrow batches (%s)', (mode) => {
  let api: TestApi;
  let runId: string;
  beforeAll(async () => {
    api = await startTestApi({ mode });
    runId = await createRun(api.url);
    await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(2));
  });
  afterAll(async () => api?.close());

  const ids = (batch_id: string) => ({ batch_id, agent_id: 'pyarrow-1' });

  async function expectRejected(bytes: Uint8Array, field: string, query = ids('bad')) {
    const res = await postArrow(api.url, runId, bytes, query);
    expect(res.status).toBe(400);
    const err = ApiError.parse(res.body);
    expect(err.field).toBe(field);
    expect(err.message).toContain(field);
    expect(await countRequests(api.db, runId)).toBe(0);
  }

  it.each([
    ['a column of the wrong type', () => streamOf({ latency_ms: vec(['10', '12', '48'], new Utf8()) }), 'latency_ms'],
    ['a float status', () => streamOf({ status: vec([200, 200, 0], new Float64()) }), 'status'],
    ['a missing column', () => streamOf({}, ['compute_ms']), 'compute_ms'],
    ['an extra column', () => streamOf({ region: vec(['eu', 'eu', 'us'], new Utf8()) }), 'region'],
    ['an empty batch', () => streamOf({ level: vec([], new Float64()), ts_ms: vec([], new Float64()), latency_ms: vec([], new Float64()), compute_ms: vec([], new Float64()), queue_ms: vec([], new Float64()), status: vec([], new Int32()) }), 'level'],
    ['a truncated stream', () => streamOf().subarray(0, streamOf().length - 100), 'body'],
    ['a stream without its end marker', () => streamOf().subarray(0, streamOf().length - 8), 'body'],
    ['a null level', () => streamOf({ level: vec([2, null, 2], new Float64()) }), 'level[1]'],
    ['a timestamp in the year 33658', () => streamOf({ ts_ms: vec([T0, 1e15, T0], new Float64()) }), 'ts_ms[1]'],
    ['a latency of Number.MAX_VALUE ms', () => streamOf({ latency_ms: vec([1, Number.MAX_VALUE, 1], new Float64()) }), 'latency_ms[1]'],
    ['a level of 1e308', () => streamOf({ level: vec([2, 1e308, 2], new Float64()) }), 'level[1]'],
  ])('refuses %s with a 400 naming %s, writing nothing', async (_what, bytes, field) => {
    await expectRejected(bytes(), field);
  });

  it('needs batch_id and agent_id in the query string', async () => {
    await expectRejected(streamOf(), 'querystring.batch_id', { agent_id: 'a' } as never);
    await expectRejected(streamOf(), 'querystring.agent_id', { batch_id: 'b' } as never);
  });

  it('refuses a body of another media type with 415', async () => {
    const res = await fetch(`${api.url}/api/v1/runs/${runId}/events`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: new Uint8Array([1, 2, 3]) });
    expect(res.status).toBe(415);
    expect(await countRequests(api.db, runId)).toBe(0);
  });

  it('stores a pyarrow-like batch, converting widths and keeping nulls, and the canonical encoding as well', async () => {
    expect((await postArrow(api.url, runId, streamOf(), ids('py-1'))).body).toEqual({ accepted: 3, duplicate: false });
    const canonical = arrowOf(randomBatch('sdk-1', 1000, 7, 2));
    expect((await postArrow(api.url, runId, canonical, ids('sdk-1'))).body).toEqual({ accepted: 1000, duplicate: false });
    const rows = await api.db.client.query({
      query: `SELECT ts_ms, latency_ms, compute_ms, status FROM kb_request_events_v1 WHERE run_id = {run:UUID} AND agent_id = 'pyarrow-1' ORDER BY ts_ms LIMIT 3`,
      query_params: { run: runId },
      format: 'JSONEachRow',
    });
    expect(await rows.json()).toEqual([
      { ts_ms: T0 + 10, latency_ms: 10.5, compute_ms: 9.125, status: 200 },
      { ts_ms: T0 + 20, latency_ms: 12.25, compute_ms: 10, status: 200 },
      { ts_ms: T0 + 30, latency_ms: 48, compute_ms: null, status: 0 },
    ]);
    expect(await countRequests(api.db, runId)).toBe(1003);
  });
});
