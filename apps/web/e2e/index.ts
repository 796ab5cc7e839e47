/** Helpers for browser tests against the built web app; the lead's end-to-end test with the real API uses these. */
export { launchChromium, CHROMIUM_ARGS, CHROMIUM_PATH } from './browser.ts';
export { ensureNextBuild, isBuildStale } from './build.ts';
export { startFixtureApi, type FixtureApi, type FixtureApiOptions, type FixtureStats } from './fixture-api.ts';
export { FIXTURE_IDS, LIVE_LEVELS, generatorLimitedRun, liveRunAt, modelPoint, noisyRun, staticRuns, withAnalysis } from './fixture-data.ts';
export { RELEASE_IDS, crowkisRuns, fusilladeRuns, releaseRuns } from './fixture-releases.ts';
export { buildComparison, samplesFor } from './fixture-compare.ts';
export { freePort, startNextApp, WEB_DIR, type NextApp, type StartNextAppOptions } from './next-app.ts';
export { startStack, SCREENSHOT_DIR, type Stack } from './stack.ts';
