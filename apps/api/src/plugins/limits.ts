/**
 * Every bound the API puts on what one client can make it do, with the environment variable that
 * sets it. Error messages name the variable, so an operator who meets a 413 or 429 knows which
 * knob it was. Defaults suit a team's server: an agent's full batch, a dashboard, a CI gate.
 */
export interface Limits {
  /** Any JSON body but an event batch (a run with 50 tags is ~30 KB). */
  bodyBytes: number;
  /** An event batch: 100,000 events are ~8 MB of JSON, ~4 MB of Arrow. */
  eventsBodyBytes: number;
  /** Bytes of request bodies received and not yet answered, all together (counted as they arrive). */
  bodyBudgetBytes: number;
  /** The same, per client (its token), on a server that requires tokens. */
  bodyBudgetPerClientBytes: number;
  /** A request that announced a body must send its first byte within this (after its headers). */
  bodyStartTimeoutMs: number;
  /** Headers and body must have arrived within this; a slow body is cut (408) after it. */
  requestTimeoutMs: number;
  /** Requests per window per client (its token, or its IP without one); 0 turns it off. */
  rateMax: number;
  rateWindowMs: number;
  /** Comparisons computed at once; more wait in a queue of `compareQueue`; beyond that 429. */
  compareConcurrency: number;
  compareQueue: number;
  /** Runs in one comparison, base and heads together (the bootstrap's cost grows with them). */
  compareMaxRuns: number;
  /** Finished comparisons kept (their runs can no longer change); 0 turns the cache off. */
  compareCacheEntries: number;
  /** Open live streams per client and in all. */
  livePerClient: number;
  liveTotal: number;
  /** /readyz fails below this much free space on the disks ClickHouse writes to. */
  minFreeBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  bodyBytes: 256 * 1024,
  eventsBodyBytes: 16 * 1024 * 1024,
  bodyBudgetBytes: 256 * 1024 * 1024,
  // Four full event bodies: one token's agents cannot hold more than a quarter of the total.
  bodyBudgetPerClientBytes: 64 * 1024 * 1024,
  // An agent sends its body right after its headers; even a slow link delivers a first byte in well under a second.
  bodyStartTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
  rateMax: 6000,
  rateWindowMs: 60_000,
  compareConcurrency: 2,
  compareQueue: 8,
  compareMaxRuns: 24,
  compareCacheEntries: 64,
  livePerClient: 16,
  liveTotal: 200,
  minFreeBytes: 512 * 1024 * 1024,
};

/** The variable behind each limit, named in the errors it causes and in the README. */
export const LIMIT_VARS = {
  bodyBytes: 'KNEEBOARD_BODY_LIMIT_BYTES',
  eventsBodyBytes: 'KNEEBOARD_EVENTS_BODY_LIMIT_BYTES',
  bodyBudgetBytes: 'KNEEBOARD_BODY_BUDGET_BYTES',
  bodyBudgetPerClientBytes: 'KNEEBOARD_BODY_BUDGET_PER_CLIENT_BYTES',
  bodyStartTimeoutMs: 'KNEEBOARD_BODY_START_TIMEOUT_S',
  requestTimeoutMs: 'KNEEBOARD_REQUEST_TIMEOUT_S',
  rateMax: 'KNEEBOARD_RATE_LIMIT_PER_MIN',
  rateWindowMs: 'KNEEBOARD_RATE_LIMIT_PER_MIN',
  compareConcurrency: 'KNEEBOARD_COMPARE_CONCURRENCY',
  compareQueue: 'KNEEBOARD_COMPARE_QUEUE',
  compareMaxRuns: 'KNEEBOARD_COMPARE_MAX_RUNS',
  compareCacheEntries: 'KNEEBOARD_COMPARE_CACHE',
  livePerClient: 'KNEEBOARD_LIVE_PER_CLIENT',
  liveTotal: 'KNEEBOARD_LIVE_TOTAL',
  minFreeBytes: 'KNEEBOARD_MIN_FREE_BYTES',
} as const satisfies Record<keyof Limits, string>;
