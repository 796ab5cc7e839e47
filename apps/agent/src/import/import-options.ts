import { z } from 'zod';
import { DEFAULT_API_URL, DEFAULT_WEB_URL } from '@kneeboard/contracts';
import type { ToolSpec } from './records.ts';

/** The import's options: what the CLI's flags map to, checked once. */
export const ImportConfig = z
  .object({
    files: z.array(z.string().min(1)).min(1, 'give at least one file'),
    /** One level per file, or one for all of them; absent: recovered from the tool's schedule. */
    levels: z.array(z.number().positive().max(1e9)).optional(),
    /** Trimmed from the start of each step (not measured, still stored). */
    warmupMs: z.number().nonnegative().default(0),
    api: z.url().default(DEFAULT_API_URL),
    web: z.url().default(DEFAULT_WEB_URL),
    /** Into this existing run; otherwise a new run (or the one an earlier import of the same files made). */
    runId: z.uuid().optional(),
    run: z
      .object({
        service: z.string().trim().min(1).max(200),
        release: z.string().trim().min(1).max(200),
        name: z.string().max(200).optional(),
        git_sha: z.string().optional(),
        tags: z.record(z.string(), z.string()).default({}),
      })
      .optional(),
    loadModel: z.enum(['closed', 'open']).optional(),
    parameter: z.string().trim().min(1).max(100).optional(),
    /** Events per batch. Larger batches mean fewer requests; the API takes up to 100,000. */
    maxBatchEvents: z.number().int().min(1).max(100_000).default(50_000),
    deliveryTimeoutMs: z.number().int().positive().default(60_000),
    /** Batches posted at once (the API decodes and inserts several in parallel). */
    inFlight: z.number().int().min(1).max(16).default(4),
    /** An API token (ingest scope is enough). */
    token: z.string().min(1).optional(),
    /** Live: read one file (or `-`, stdin) as it is written, send as it goes; the run is finished when the stream ends. */
    follow: z.boolean().default(false),
    /** --follow on a file: it has ended when it has not grown for this long (a stream ends at EOF). */
    followIdleMs: z.number().int().positive().default(30_000),
    /** --follow: a partial batch leaves after this long, so the curve moves while the test runs. */
    followFlushMs: z.number().int().positive().default(1_000),
  })
  .superRefine((c, ctx) => {
    if (c.runId === undefined && c.run === undefined) ctx.addIssue({ code: 'custom', path: ['run'], message: 'give --service and --release, or --run' });
    if (c.follow && c.files.length !== 1) ctx.addIssue({ code: 'custom', path: ['files'], message: '--follow reads one file or stream (- for stdin)' });
    if (c.levels !== undefined && c.levels.length !== 1 && c.levels.length !== c.files.length) {
      ctx.addIssue({ code: 'custom', path: ['levels'], message: `give one level, or one per file (${c.files.length})` });
    }
  });
export type ImportInput = z.input<typeof ImportConfig>;
export type ImportConfig = z.output<typeof ImportConfig>;

/** A level for every file, or null where the tool's own schedule (or its per-request level) decides. */
export function fileLevels(cfg: ImportConfig): Array<number | null> {
  return cfg.files.map((_, i) => cfg.levels?.[cfg.levels.length === 1 ? 0 : i] ?? null);
}

export function requireLevelSource(cfg: ImportConfig, tool: ToolSpec): string | null {
  if (cfg.levels !== undefined || tool.levelsFrom !== null) return null;
  return `${tool.name} files do not say what load they ran at: give --level N (one file), or --level a,b,c (one per file, a sweep)`;
}
