// A load generator that records 1,000 events against an API that refuses them (503), waits until
// they are all in the spool, says so, and hangs — for the parent to SIGKILL it.
//   node --import tsx record-then-hang.ts <api-url> <spool-dir>
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRecorder } from '../../src/index.ts';

const [api, spoolDir] = process.argv.slice(2) as [string, string];
const recorder = await createRecorder({ api, run: { service: 'killed', release: 'r1' }, spoolDir, flushIntervalMs: 50, maxBatchEvents: 300 });
const step = recorder.step(1);
step.start();
for (let i = 0; i < 1_000; i++) recorder.record({ level: 1, latencyMs: 1 + (i % 5), status: 200 });
const dir = join(spoolDir, recorder.runId);
const spooled = () =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.events.json'))
    .reduce((n, f) => n + (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { level: unknown[] }).level.length, 0);
while (spooled() < 1_000) await sleep(10);
process.stdout.write(`spooled ${recorder.runId}\n`);
await sleep(60_000);
