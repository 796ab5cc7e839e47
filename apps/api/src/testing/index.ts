/** Helpers for tests that drive the real API over HTTP (this package's and other apps'). */
export { batchOf, createRun, postJson, prng, type EventRow } from './http.ts';
export { storeSyntheticRun, type SyntheticRunOptions } from './synthetic-run.ts';
export { pngSize } from './png-size.ts';
export { medianRss, rssMb, runLiveSoak, type LiveSoakResult, type RssSample } from './live-soak.ts';
