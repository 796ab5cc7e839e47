// A load generator that records 1,000 events against an API that refuses them (503), waits until
// they are all in the spool, says so, and hangs — for the parent to SIGKILL it.
//   node --import tsx record-then-hang.ts <api-url> <spool-dir>
import { setTimeout as sleep } from 'node:timers/promises';
import { ANY_TIME, decodeArrowColumns } from '@kneeboard/event-wire';
import { createRecorder } from '../../src/index.ts';
import { listSpool, RunSpool } from '../../src/spool.ts';

const [api, spoolDir] = process.argv.slice(2) as [string, string];
const recorder = await createRecorder({ api, run: { service: 'killed', release: 'r1' }, spoolDir, flushIntervalMs: 50, maxBatchEvents: 300 });
// Progress on stdout, so a parent that gives up can say where this stopped.
process.stdout.write(`run ${recorder.runId}\n`);
const step = recorder.step(1);
step.start();
for (let i = 0; i < 1_000; i++) recorder.record({ level: 1, latencyMs: 1 + (i % 5), status: 200 });
const spool = await RunSpool.open(spoolDir, recorder.runId);
async function spooled(): Promise<number> {
  const run = (await listSpool(spoolDir)).find((r) => r.runId === recorder.runId);
  let n = 0;
  for (const e of run?.entries ?? []) if (e.kind === 'events') n += decodeArrowColumns((await spool.read(e.file)).bytes, ANY_TIME).length;
  return n;
}
let lastSaid = Date.now();
for (let n = await spooled(); n < 1_000; n = await spooled()) {
  if (Date.now() - lastSaid > 1_000) {
    process.stdout.write(`${n} of 1000 events spooled so far\n`);
    lastSaid = Date.now();
  }
  await sleep(10);
}
process.stdout.write(`spooled ${recorder.runId}\n`);
await sleep(60_000);
