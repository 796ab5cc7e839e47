import { z } from 'zod';
import { EpochMs } from './common.ts';
import { RunSummary } from './run.ts';

export const ServiceSummary = z.object({
  service: z.string(),
  runs: z.number().int().nonnegative(),
  releases: z.number().int().nonnegative(),
  last_run_at: EpochMs,
});
export type ServiceSummary = z.infer<typeof ServiceSummary>;

export const ListServicesResponse = z.object({ services: z.array(ServiceSummary) });

/** A release and its runs, newest run first. */
export const ReleaseGroup = z.object({
  release: z.string(),
  first_run_at: EpochMs,
  runs: z.array(RunSummary),
});
export type ReleaseGroup = z.infer<typeof ReleaseGroup>;

/** Releases in the order they were first run, oldest first: "the previous release" is the one before. */
export const ServiceReleasesResponse = z.object({ service: z.string(), releases: z.array(ReleaseGroup) });
export type ServiceReleasesResponse = z.infer<typeof ServiceReleasesResponse>;
