import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecorder } from '@kneeboard/agent-sdk';
import { countRequests } from '@kneeboard/clickhouse';
import { startClickHouseServer, type ClickHouseServer } from '@kneeboard/clickhouse-server';
import { startTestApi, type TestApi } from './helpers.ts';

/**
 * Issue 11.6: the ClickHouse server stops mid-sweep (SIGKILL, down for OUTAGE_MS, then restarted on
 * the same data). The API answers 503 meanwhile, the agent (the SDK's recorder) keeps recording and
 * spools, and once ClickHouse is back the run holds exactly what the agent recorded. Bounded by
 * counts: 3 levels × 40 ticks × 100 events. The full 30 s outage, by hand:
 *   KNEEBOARD_OUTAGE_MS=30000 pnpm --filter @kneeboard/api exec vitest run test/adversarial-outage.int.test.ts
 */
const OUTAGE_MS = Number(process.env.KNEEBOARD_OUTAGE_MS ?? 8_000);
const TICKS = 40;
const EVENTS_PER_TICK = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ClickHouse stopped mid-sweep', () => {
  let server: ClickHouseServer;
  let api: TestApi;
  const spoolDir = mkdtempSync(join(tmpdir(), 'kb-outage-spool-'));
  beforeAll(async () => {
    server = await startClickHouseServer();
    api = await startTestApi({ mode: 'server', server });
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await server?.stop();
    rmSync(spoolDir, { recursive: true, force: true });
  });

  it('answers 503 while it is down; the agent spools; the run is complete afterwards', async () => {
    const statuses = new Set<string>();
    const recorder = await createRecorder({
      api: api.url,
      run: { service: 'outage', release: 'v1' },
      spoolDir,
      wireFormat: 'json',
      flushIntervalMs: 100,
      retry: { initialDelayMs: 100, maxDelayMs: 1_000, giveUpAfterMs: 300_000 },
      onRetry: ({ error }) => statuses.add(String((error as { status?: number }).status ?? 'network')),
    });
    let outageStatus = 0;
    let readyDuringOutage = 0;
    for (const level of [1, 2, 3]) {
      const step = recorder.step(level);
      step.start();
      for (let tick = 0; tick < TICKS; tick++) {
        for (let i = 0; i < EVENTS_PER_TICK; i++) recorder.record({ level, latencyMs: 1 + (i % 13), status: 200 });
        if (level === 2 && tick === TICKS / 2) {
          await server.kill();
          const down = Date.now();
          outageStatus = (await fetch(`${api.url}/api/v1/runs/${recorder.runId}`)).status;
          readyDuringOutage = (await fetch(`${api.url}/readyz`)).status;
          // The agent keeps recording through the outage (a tick of events every 50 ms).
          while (Date.now() - down < OUTAGE_MS) {
            for (let i = 0; i < EVENTS_PER_TICK; i++) recorder.record({ level, latencyMs: 2, status: 200 });
            await sleep(50);
          }
          await server.restart();
        }
        await sleep(50);
      }
      void step.end();
    }
    const report = await recorder.finish('finished', { timeoutMs: 240_000 });
    const stored = await countRequests(api.db, recorder.runId);
    console.log(`outage ${OUTAGE_MS} ms: ${report.recorded} recorded, ${report.uploaded} acknowledged, ${stored} stored, ${report.retries} retries (${[...statuses].join(', ')}), ${report.lostEvents} lost, ${report.spooledEvents} left spooled`);
    expect(outageStatus).toBe(503);
    expect(readyDuringOutage).toBe(503);
    expect(report.retries).toBeGreaterThan(0); // the agent did meet the outage
    expect(report.lostEvents).toBe(0);
    expect(report.spooledEvents).toBe(0);
    expect(stored).toBe(report.recorded);
  }, 600_000);
});
