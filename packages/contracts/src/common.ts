import { z } from 'zod';

/** Epoch milliseconds. Fractions are allowed: agents measure with sub-millisecond clocks. */
export const EpochMs = z.number().finite().positive();

/** A load level: concurrency, offered rate, thread count… whatever the run sweeps. */
export const Level = z.number().finite().positive();

export const RunId = z.uuid();

/** A duration in milliseconds. */
export const Millis = z.number().finite().nonnegative();

/**
 * What an agent may send, bounded to what is physically meaningful, so one poisoned value cannot
 * break every later query of its run: no load knob goes past a billion, no request takes a day.
 */
export const MAX_LEVEL = 1e9;
export const MAX_DURATION_MS = 86_400_000;

/** A level as ingested (events and step windows): positive and at most MAX_LEVEL. */
export const IngestLevel = Level.max(MAX_LEVEL, `must be at most ${MAX_LEVEL}`);

/** A duration as ingested: at most a day. */
export const IngestMillis = Millis.max(MAX_DURATION_MS, `must be at most ${MAX_DURATION_MS} ms (a day)`);

/**
 * An epoch time as ingested: between 2000-01-01 and 2100-01-01. Event times are further bounded
 * by their run's step windows when they arrive (see EVENT_TIME_SLACK_MS).
 */
export const IngestEpochMs = EpochMs.min(946_684_800_000, 'must be an epoch time in ms after 2000-01-01').max(4_102_444_800_000, 'must be an epoch time in ms before 2100-01-01');
