/**
 * Helpers for tests and benches that drive the real API (this package's and other apps'). Outside
 * src/ on purpose: the server never imports them; other packages reach them as `@kneeboard/api/testing`.
 */
export { freePort, startServerProcess, type ServerProcess } from './spawn.ts';
export { batchOf, createRun, postJson, type EventRow } from './http.ts';
export { storeSyntheticRun, type SyntheticRunOptions } from './synthetic-run.ts';
export { pngSize } from './png-size.ts';
export { medianRss, rssMb, runLiveSoak, type LiveSoakResult, type RssSample } from './live-soak.ts';
