import { mkdtempSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRecorder, KneeboardApi, replaySpool, type RecorderOptions } from '../src/index.ts';
import { FakeApi } from '../testing/fake-api.ts';

const FAST_RETRY = { initialDelayMs: 10, maxDelayMs: 50, giveUpAfterMs: 2_000 };
let fake: FakeApi;
let spoolDir: string;

beforeEach(async () => {
  fake = await FakeApi.start();
  spoolDir = mkdtempSync(join(tmpdir(), 'kb-spool-'));
});
afterEach(async () => {
  await fake.close();
});

const open = (extra: Partial<RecorderOptions> = {}) =>
  createRecorder({ api: fake.url, run: { service: 'svc', release: 'r1' }, spoolDir, agentId: 'test-agent', retry: FAST_RETRY, ...extra });
const event = (level = 1) => ({ level, latencyMs: 5, computeMs: 4, queueMs: 0.5, status: 200 });
const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

describe('createRecorder against a node:http API on 127.0.0.1', () => {
  it('sends a batch about every 500 ms while events keep coming, each with a fresh batch_id', async () => {
    const rec = await open();
    const started = Date.now();
    let n = 0;
    while (Date.now() - started < 1_300) {
      rec.record(event());
      n += 1;
      await sleep(5);
    }
    const times = fake.eventsAttempts.map((a) => a.at - started);
    const report = await rec.finish();
    // Every 500 ms (the timer started with the recorder, a moment before `started`): two batches in
    // 1.3 s, none more than ~a second behind.
    expect(times.length).toBe(2);
    expect(times[0]).toBeLessThan(800);
    expect(times[1]! - times[0]!).toBeGreaterThan(250);
    expect(times[1]! - times[0]!).toBeLessThan(800);
    expect(new Set(fake.batches.map((b) => b.batch_id)).size).toBe(fake.batches.length);
    expect(fake.events(rec.runId).length).toBe(n);
    expect(report).toMatchObject({ recorded: n, uploaded: n, lostEvents: 0, spooledEntries: 0, spoolDir: null });
    expect(fake.finishes).toEqual([{ runId: rec.runId, status: 'finished' }]);
    // Everything acknowledged: nothing left on disk, not even the run's directory.
    expect(filesIn(spoolDir)).toEqual([]);
  });

  it('cuts a batch as soon as it is full, never above maxBatchEvents', async () => {
    const rec = await open({ flushIntervalMs: 60_000, maxBatchEvents: 1_000 });
    for (let i = 0; i < 2_500; i++) rec.record({ level: 2, latencyMs: 1, status: 200 });
    const deadline = Date.now() + 5_000;
    while (fake.batches.length < 2 && Date.now() < deadline) await sleep(5);
    expect(fake.batches.map((b) => b.level.length)).toEqual([1_000, 1_000]);
    await rec.finish();
    expect(fake.batches.map((b) => b.level.length)).toEqual([1_000, 1_000, 500]);
    expect(fake.batches.every((b) => b.compute_ms.every((v) => v === null))).toBe(true);
  });

  it('delivers a finish queued just as the queue ran empty (awaiting step.end() right before finish())', async () => {
    const rec = await open({ flushIntervalMs: 60_000 });
    const step = rec.step(1);
    step.start();
    rec.record(event());
    await step.end();
    const report = await rec.finish('finished', { timeoutMs: 2_000 });
    expect(report).toMatchObject({ spooledEntries: 0, uploaded: 1 });
    expect(fake.finishes.filter((f) => f.runId === rec.runId)).toEqual([{ runId: rec.runId, status: 'finished' }]);
  });

  it('posts a step open, then its events before its final window with health, in order', async () => {
    const rec = await open({ flushIntervalMs: 60_000 });
    const step = rec.step(4);
    const t0 = 1_700_000_000_000;
    step.start({ startedAt: t0, measureFrom: t0 + 500 });
    for (let i = 0; i < 10; i++) rec.record({ ...event(4), tsMs: t0 + 600 + i });
    const health = { target: 4, in_flight_mean: 3.9, agent_cpu_cores: 0.2, event_loop_delay_p99_ms: 1.5, generator_limited: false };
    expect(await step.end({ endedAt: t0 + 1_500, health })).toBe('delivered');
    const posts = fake.steps.map((s) => s.step);
    expect(posts.map((p) => p.ended_at)).toEqual([null, t0 + 1_500]);
    expect(posts[1]!.health).toMatchObject({ ...health, late_sends: 0, missed_sends: 0, reason: null });
    // The batch arrived before the final window.
    expect(fake.eventsAttempts[0]!.at).toBeLessThanOrEqual(fake.steps[1]!.at);
    expect(fake.events(rec.runId).length).toBe(10);
    await rec.finish();
  });

  it('retries a 503 and a dropped connection with the same batch_id, and never resends after a success', async () => {
    fake.failNext('events', 1, 503);
    fake.failNext('events', 1, 'drop');
    const rec = await open({ flushIntervalMs: 60_000 });
    for (let i = 0; i < 10; i++) rec.record(event(4));
    await rec.flush();
    for (let i = 0; i < 5; i++) rec.record(event(4));
    const report = await rec.finish();
    const [first, second, third, fourth] = fake.eventsAttempts;
    expect(fake.eventsAttempts.map((a) => a.answered)).toEqual([503, 'drop', 200, 200]);
    expect([second!.batchId, third!.batchId]).toEqual([first!.batchId, first!.batchId]);
    expect(fourth!.batchId).not.toBe(first!.batchId);
    expect(fake.events(rec.runId).length).toBe(15);
    expect(report).toMatchObject({ uploaded: 15, batches: 2, lostEvents: 0, retries: 2 });
  });

  it('honours Retry-After', async () => {
    fake.failNext('events', 1, 429, '1');
    const rec = await open({ flushIntervalMs: 60_000 });
    rec.record(event());
    const started = Date.now();
    await rec.flush();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    await rec.finish();
  });

  it('treats a 400 as final: one attempt, the loss reported, the body kept aside under rejected/', async () => {
    const lost: Array<{ kind: string; events: number }> = [];
    const rec = await open({ flushIntervalMs: 60_000, onLost: (_err, l) => lost.push(l) });
    rec.record(event());
    rec.record({ ...event(), latencyMs: -1 }); // the contract refuses a negative latency
    const report = await rec.finish();
    expect(fake.eventsAttempts.map((a) => a.answered)).toEqual([400]);
    expect(report).toMatchObject({ recorded: 2, uploaded: 0, lostEvents: 2 });
    expect(lost).toEqual([{ kind: 'events', events: 2 }]);
    expect(filesIn(join(spoolDir, 'rejected', rec.runId))).toHaveLength(1);
  });

  it('keeps everything in the spool while the API is down, and a replay delivers it once', async () => {
    const rec = await open({ flushIntervalMs: 100 });
    const step = rec.step(1);
    step.start();
    fake.failNext('events', 10_000, 503);
    fake.failNext('steps', 10_000, 503);
    fake.failNext('finish', 10_000, 503);
    for (let i = 0; i < 300; i++) rec.record(event());
    await sleep(250);
    for (let i = 0; i < 200; i++) rec.record(event());
    void step.end();
    const report = await rec.finish('finished', { timeoutMs: 300 });
    expect(report.uploaded).toBe(0);
    expect(report.lostEvents).toBe(0);
    expect(report.spooledEvents).toBe(500);
    expect(report.spoolDir).toBe(spoolDir);
    // The files wait in order: the open window, batches, the final window, the finish.
    const files = filesIn(join(spoolDir, rec.runId)).filter((f) => f !== 'owner.json');
    expect(files.map((f) => f.split('.').slice(1).join('.'))).toEqual(['steps.json', 'events.arrow', 'events.arrow', 'steps.json', 'finish.json']);

    // The API is back: a replay sends them in order, the batches with their original ids.
    fake.clearFailures();
    const api = new KneeboardApi({ baseUrl: fake.url, retry: FAST_RETRY });
    const replay = await replaySpool({ api, spoolDir });
    await api.close();
    expect(replay).toMatchObject({ runs: 1, delivered: 5, events: 500, rejected: 0, remaining: 0 });
    expect(fake.events(rec.runId).length).toBe(500);
    expect(fake.finalSteps(rec.runId).get(1)!.ended_at).not.toBeNull();
    expect(fake.finishes).toEqual([{ runId: rec.runId, status: 'finished' }]);
    expect(filesIn(spoolDir)).toEqual([]);
    // A second replay finds nothing and sends nothing twice.
    const again = await replaySpool({ api: new KneeboardApi({ baseUrl: fake.url }), spoolDir });
    expect(again.delivered).toBe(0);
  });

  it('drops bodies from memory past maxMemoryBytes and reads them back from disk', async () => {
    const rec = await open({ flushIntervalMs: 60_000, maxBatchEvents: 100, maxMemoryBytes: 1 });
    fake.failNext('events', 3, 503);
    for (let i = 0; i < 1_000; i++) rec.record(event());
    const report = await rec.finish();
    expect(report).toMatchObject({ recorded: 1_000, uploaded: 1_000, lostEvents: 0 });
    expect(fake.events(rec.runId).length).toBe(1_000);
  });

  it('without a spool, loses (and says so) only what no longer fits in memory', async () => {
    const lost: number[] = [];
    const rec = await open({ spoolDir: null, flushIntervalMs: 60_000, maxBatchEvents: 100, maxMemoryBytes: 30_000, onLost: (_e, l) => lost.push(l.events) });
    fake.failNext('events', 10_000, 503);
    for (let i = 0; i < 1_000; i++) rec.record(event());
    await sleep(50);
    const report = await rec.finish('finished', { timeoutMs: 100 });
    expect(report.uploaded).toBe(0);
    expect(report.lostEvents).toBe(1_000);
    expect(lost.reduce((a, b) => a + b, 0)).toBe(1_000);
  });
});
