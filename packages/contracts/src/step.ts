import { z } from 'zod';
import { EpochMs, Level } from './common.ts';

/**
 * A load level's time window. Requests completed before `measure_from` are warm-up and excluded
 * from the curve. `ended_at` may be omitted while the step is still running (the agent posts the
 * window when the step starts and again when it ends); the latest post for a level wins.
 */
export const StepWindow = z
  .object({
    level: Level,
    started_at: EpochMs,
    measure_from: EpochMs,
    ended_at: EpochMs.nullable().default(null),
  })
  .superRefine((s, ctx) => {
    if (s.measure_from < s.started_at) {
      ctx.addIssue({ code: 'custom', path: ['measure_from'], message: 'must not be before started_at' });
    }
    if (s.ended_at !== null && s.ended_at < s.measure_from) {
      ctx.addIssue({ code: 'custom', path: ['ended_at'], message: 'must not be before measure_from' });
    }
  });
export type StepWindow = z.infer<typeof StepWindow>;
export type StepWindowInput = z.input<typeof StepWindow>;
