import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { k6Requests } from './import-helpers.ts';
import { findTool, fixture } from './load-tools.ts';

const K6 = findTool('k6');
const REPLAY = join(import.meta.dirname, 'replay-k6.mjs');

/** Whether the real k6 drives the load (else a recorded k6 run is replayed). */
export const realK6 = K6 !== null;

export interface K6Load {
  script: string;
  targetUrl: string;
  /** `-` for stdout (the process's stdout is piped), or the file k6 writes its JSON to. */
  out: string;
  /** Where k6's end-of-test summary goes (its `http_reqs` count is what the test compares with). */
  summaryPath: string;
  /** A scratch directory for the recording's decompressed copy. */
  dir: string;
}

/**
 * k6 running `script` where it is installed (scripts/lib/load-tools.sh installs it); elsewhere the
 * committed output of a real k6 run, written over 4 s to the same place k6 would write it, with
 * its summary written as k6's own would be. Either way the follower sees a stream that grows while
 * the "load" runs and ends when it exits, so these tests run on every machine.
 */
export function startK6(load: K6Load): ChildProcess {
  const stdio: StdioOptions = load.out === '-' ? ['ignore', 'pipe', 'inherit'] : 'inherit';
  if (K6 !== null) {
    return spawn(K6, ['run', '--quiet', '--out', `json=${load.out}`, load.script], {
      env: { ...process.env, TARGET: load.targetUrl, SUMMARY: load.summaryPath, K6_NO_USAGE_REPORT: 'true' },
      stdio,
    });
  }
  const sample = recordedK6Output(load.dir);
  writeFileSync(load.summaryPath, JSON.stringify({ metrics: { http_reqs: { values: { count: k6Requests(sample, 'http_reqs') } } } }));
  return spawn(process.execPath, [REPLAY, sample, load.out, '4000'], { stdio });
}

/** The recorded run's output, decompressed into `dir` (a ramp of a real k6 against the demo target). */
export function recordedK6Output(dir: string): string {
  return fixture('k6-ramp.json.gz', join(dir, 'recorded-k6.json'));
}
