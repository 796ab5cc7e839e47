// Serves the fake API on a fixed port so the CLI can be tried before the real API runs:
//   npx tsx test/support/run-fake-api.ts [port]   (default 4000), Ctrl-C to stop.
import { FakeApi } from '@kneeboard/agent-sdk/testing';

const api = await FakeApi.start(Number(process.argv[2] ?? 4000));
console.log(`fake Kneeboard API on ${api.url}`);
setInterval(() => {
  const events = api.batches.reduce((n, b) => n + b.level.length, 0);
  console.log(`runs ${api.runs.length} · steps ${api.steps.length} · batches ${api.batches.length} · events ${events} · finished ${api.finishes.map((f) => f.status).join(',')}`);
}, 2_000).unref();
process.once('SIGINT', () => void api.close().then(() => process.exit(0)));
