import { z } from 'zod';
import { EpochMs, IngestEpochMs, RunId } from './common.ts';
import { LINE, NONBLANK_LINE, TEXT, plainLine, plainText } from './text.ts';

export const LoadModel = z.enum(['closed', 'open']);
export type LoadModel = z.infer<typeof LoadModel>;

export const RunStatus = z.enum(['running', 'finished', 'aborted']);
export type RunStatus = z.infer<typeof RunStatus>;

const Label = z.string().max(200).trim().min(1).superRefine(plainLine).meta(NONBLANK_LINE);

/** Tags are for filtering and labels in charts: a few dozen at most, each key ≤ 100 and value ≤ 500 characters. */
export const MAX_TAGS = 50;

export const Tags = z
  .record(z.string().min(1).max(100).superRefine(plainLine).meta(LINE), z.string().max(500).superRefine(plainLine).meta(LINE))
  .refine((tags) => Object.keys(tags).length <= MAX_TAGS, `at most ${MAX_TAGS} tags`);
export type Tags = z.infer<typeof Tags>;

export const CreateRunBody = z.object({
  service: Label,
  name: z.string().max(200).trim().superRefine(plainLine).meta(LINE).optional(),
  release: Label,
  git_sha: z.string().regex(/^[0-9a-f]{4,64}$/i, 'must be a hex git sha').optional(),
  load_model: LoadModel.default('closed'),
  parameter: z.string().max(100).trim().min(1).superRefine(plainLine).meta(NONBLANK_LINE).default('concurrency'),
  tags: Tags.default({}),
  agent_host: z.string().max(255).superRefine(plainLine).meta(LINE).optional(),
  agent_cores: z.number().int().positive().max(100_000).optional(),
});
export type CreateRunBody = z.infer<typeof CreateRunBody>;
export type CreateRunInput = z.input<typeof CreateRunBody>;

export const CreateRunResponse = z.object({ id: RunId });

export const Run = z.object({
  id: RunId,
  service: z.string(),
  name: z.string(),
  release: z.string(),
  git_sha: z.string().nullable(),
  load_model: LoadModel,
  parameter: z.string(),
  tags: Tags,
  /** Set by people, not agents: "baseline", "flaky"… Always sent by the API. */
  labels: z.array(z.string()).optional(),
  /** A note shown in the review. Always sent by the API ('' when none). */
  note: z.string().optional(),
  agent_host: z.string().nullable(),
  agent_cores: z.number().int().nullable(),
  status: RunStatus,
  /** When the test began: when the run was created, or the span its finish gave (an import: the file's first request). */
  created_at: EpochMs,
  finished_at: EpochMs.nullable(),
});
export type Run = z.infer<typeof Run>;

/**
 * `started_at`/`finished_at`: the test's own span where the API's clock does not know it — an
 * import of a file written earlier gives its first request's send and last completion. Not in the
 * future (beyond EVENT_TIME_SLACK_MS, checked by the API), `finished_at` only with `started_at`.
 */
export const FinishRunBody = z
  .object({
    status: z.enum(['finished', 'aborted']).default('finished'),
    started_at: IngestEpochMs.optional(),
    finished_at: IngestEpochMs.optional(),
  })
  .superRefine((b, ctx) => {
    if (b.finished_at === undefined) return;
    if (b.started_at === undefined) ctx.addIssue({ code: 'custom', path: ['started_at'], message: 'must be given with finished_at' });
    else if (b.finished_at < b.started_at) ctx.addIssue({ code: 'custom', path: ['finished_at'], message: 'must not be before started_at' });
  })
  .default({ status: 'finished' });
export type FinishRunBody = z.infer<typeof FinishRunBody>;

export const RunLabel = z.string().max(50).trim().min(1).superRefine(plainLine).meta(NONBLANK_LINE);

/** What people may change on a run after the fact. */
export const UpdateRunBody = z
  .object({
    labels: z.array(RunLabel).max(20).optional(),
    note: z.string().max(5000).superRefine(plainText).meta(TEXT).optional(),
  })
  .refine((b) => b.labels !== undefined || b.note !== undefined, { message: 'give labels or note', path: ['labels'] })
  .meta({ anyOf: [{ required: ['labels'] }, { required: ['note'] }] });
export type UpdateRunBody = z.infer<typeof UpdateRunBody>;

export const ListRunsQuery = z.object({
  service: z.string().superRefine(plainLine).meta(LINE).optional(),
  release: z.string().superRefine(plainLine).meta(LINE).optional(),
  status: RunStatus.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** A row of the runs list: the run plus what the list shows about its curve. */
export const RunSummary = Run.extend({
  levels: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  peak_qps: z.number().nonnegative().nullable(),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const ListRunsResponse = z.object({ runs: z.array(RunSummary) });
