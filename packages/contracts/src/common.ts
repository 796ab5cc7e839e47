import { z } from 'zod';

/** Epoch milliseconds. Fractions are allowed: agents measure with sub-millisecond clocks. */
export const EpochMs = z.number().finite().positive();

/** A load level: concurrency, offered rate, thread count… whatever the run sweeps. */
export const Level = z.number().finite().positive();

export const RunId = z.uuid();

/** A duration in milliseconds. */
export const Millis = z.number().finite().nonnegative();
