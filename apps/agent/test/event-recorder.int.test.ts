import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiHttpError, EventRecorder, KneeboardApi } from '../src/recorder/index.ts';
import { FakeApi } from './support/fake-api.ts';

const FAST_RETRY = { initialDelayMs: 10, maxDelayMs: 50, giveUpAfterMs: 5_000 };
let fake: FakeApi;
let api: KneeboardApi;

beforeEach(async () => {
  fake = await FakeApi.start();
  api = new KneeboardApi({ baseUrl: fake.url, retry: FAST_RETRY });
});
afterEach(async () => {
  await api.close();
  await fake.close();
});

const recorderFor = (runId: string, options: { flushIntervalMs?: number; maxBatchEvents?: number } = {}) => {
  const lost: Array<{ error: unknown; events: number }> = [];
  const recorder = new EventRecorder({
    send: (batch) => api.postEvents(runId, batch),
    agentId: 'test-agent',
    onBatchLost: (error, events) => lost.push({ error, events }),
    ...options,
  });
  return { recorder, lost };
};

const now = () => performance.timeOrigin + performance.now();
const waitUntil = async (ok: () => boolean, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(5);
  }
};

describe('EventRecorder against a node:http API on 127.0.0.1', () => {
  it('sends a batch about every second while events keep coming, each with a fresh batch_id', async () => {
    const { recorder } = recorderFor('run-1');
    const started = Date.now();
    let i = 0;
    // ~200 events/s for 2.3 s, like a slow closed loop.
    while (Date.now() - started < 2_300) {
      recorder.record(1, now(), 5 + (i % 7), 4, 0.5, 200);
      i += 1;
      await sleep(5);
    }
    await waitUntil(() => fake.eventsAttempts.length >= 2);
    const stats = await recorder.close();

    const times = fake.eventsAttempts.map((a) => a.at - started);
    expect(times.length).toBe(3); // two from the timer, the rest at close
    expect(times[0]).toBeGreaterThan(900);
    expect(times[0]).toBeLessThan(1_300);
    expect(times[1]! - times[0]!).toBeGreaterThan(800);
    expect(times[1]! - times[0]!).toBeLessThan(1_200);
    expect(new Set(fake.batches.map((b) => b.batch_id)).size).toBe(3);
    for (const b of fake.batches) expect(b.batch_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(fake.events().length).toBe(i);
    expect(stats).toMatchObject({ recorded: i, uploaded: i, batches: 3, lostEvents: 0, duplicateBatches: 0 });
  });

  it('sends a batch as soon as it is full, never above maxBatchEvents', async () => {
    const { recorder } = recorderFor('run-2', { flushIntervalMs: 60_000, maxBatchEvents: 1_000 });
    for (let i = 0; i < 4_000; i++) recorder.record(2, now(), 1, null, null, 200);
    // No timer and no flush() yet: only the size rule can have sent these.
    await waitUntil(() => fake.batches.length === 4);
    for (let i = 0; i < 500; i++) recorder.record(2, now(), 1, null, null, 200);
    await recorder.close();
    expect(fake.batches.map((b) => b.level.length)).toEqual([1_000, 1_000, 1_000, 1_000, 500]);
    // Columnar arrays of equal length, nulls kept as nulls.
    for (const b of fake.batches) {
      for (const col of [b.ts_ms, b.latency_ms, b.compute_ms, b.queue_ms, b.status]) expect(col.length).toBe(b.level.length);
      expect(b.compute_ms.every((v) => v === null)).toBe(true);
    }
  });

  it('retries a 503 and a dropped connection with the same batch_id, and never resends after a success', async () => {
    fake.failNext('events', 1, 503);
    fake.failNext('events', 1, 'drop');
    const { recorder, lost } = recorderFor('run-3', { flushIntervalMs: 60_000 });
    for (let i = 0; i < 10; i++) recorder.record(4, now(), 20, 19, 1, 200);
    await recorder.flush();
    for (let i = 0; i < 5; i++) recorder.record(4, now(), 20, 19, 1, 200);
    const stats = await recorder.close();

    const [first, second, third, fourth] = fake.eventsAttempts;
    expect(fake.eventsAttempts.map((a) => a.answered)).toEqual([503, 'drop', 200, 200]);
    expect(second!.batchId).toBe(first!.batchId);
    expect(third!.batchId).toBe(first!.batchId);
    expect(fourth!.batchId).not.toBe(first!.batchId);
    // Each batch_id answered 200 exactly once: nothing was sent again after its success.
    const successes = fake.eventsAttempts.filter((a) => a.answered === 200).map((a) => a.batchId);
    expect(new Set(successes).size).toBe(successes.length);
    expect(fake.events().length).toBe(15);
    expect(lost).toEqual([]);
    expect(stats).toMatchObject({ uploaded: 15, batches: 2, lostEvents: 0 });
  });

  it('treats a 400 as final: one attempt, the events counted as lost and reported with the API message', async () => {
    const { recorder, lost } = recorderFor('run-4', { flushIntervalMs: 60_000 });
    recorder.record(1, now(), 5, null, null, 200);
    recorder.record(1, now(), -1, null, null, 200); // negative latency: the contract refuses the batch
    const stats = await recorder.close();
    expect(fake.eventsAttempts.map((a) => a.answered)).toEqual([400]);
    expect(fake.batches).toEqual([]);
    expect(stats).toMatchObject({ recorded: 2, uploaded: 0, lostEvents: 2 });
    expect(lost).toHaveLength(1);
    const err = lost[0]!.error as ApiHttpError;
    expect(err).toBeInstanceOf(ApiHttpError);
    expect(err.status).toBe(400);
    expect(err.body?.field).toBe('latency_ms[1]');
  });

  it('gives a batch up after the retry budget when the API stays down', async () => {
    fake.failNext('events', 1_000, 503);
    api = new KneeboardApi({ baseUrl: fake.url, retry: { initialDelayMs: 5, maxDelayMs: 20, giveUpAfterMs: 200 } });
    const { recorder, lost } = recorderFor('run-5', { flushIntervalMs: 60_000 });
    recorder.record(1, now(), 5, null, null, 200);
    const stats = await recorder.close();
    expect(fake.eventsAttempts.length).toBeGreaterThan(2);
    expect(new Set(fake.eventsAttempts.map((a) => a.batchId)).size).toBe(1);
    expect(stats.lostEvents).toBe(1);
    expect((lost[0]!.error as ApiHttpError).status).toBe(503);
  });
});

describe('KneeboardApi', () => {
  it('creates a run, posts open and closed step windows, finishes', async () => {
    const id = await api.createRun({ service: 'svc', release: 'r1', tags: { a: 'b' } });
    await api.postStep(id, { level: 2, started_at: 1_000, measure_from: 1_500, ended_at: null });
    await api.postStep(id, { level: 2, started_at: 1_000, measure_from: 1_500, ended_at: 3_000 });
    await api.finishRun(id, 'aborted');
    expect(fake.runs[0]!.body).toMatchObject({ service: 'svc', release: 'r1', load_model: 'closed', parameter: 'concurrency' });
    expect(fake.steps.map((s) => s.step.ended_at)).toEqual([null, 3_000]);
    expect(fake.finishes).toEqual([{ runId: id, status: 'aborted' }]);
  });

  it('reports an API refusal with its field', async () => {
    fake.failNext('runs', 1, 400);
    await expect(api.createRun({ service: 'svc', release: 'r1' })).rejects.toThrow(/→ 400: injected failure/);
  });
});
