/**
 * The fixture API as a standalone server, for working on the UI without the real API:
 *   npx tsx e2e/serve-fixture.ts [port]      (default 4000; the live run restarts every 30 s)
 * then `KNEEBOARD_API_URL=http://127.0.0.1:<port> npx next dev`.
 */
import { startFixtureApi } from './fixture-api.ts';

const port = Number(process.argv[2] ?? 4000);
const api = await startFixtureApi({ port, liveStepMs: 1500, releases: true });
console.log(`fixture API on ${api.url} (live run ${api.liveRunId})`);
const restart = setInterval(() => api.restartLive(), 30_000);
const stop = () => {
  clearInterval(restart);
  void api.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
