import { availableParallelism, hostname } from 'node:os';
import { z } from 'zod';
import { CreateRunBody, MAX_BATCH_EVENTS } from '@kneeboard/contracts';
import { HTTP_TOKEN } from '../recorder/http-token.ts';
import { DEFAULT_RETRY_POLICY } from '../recorder/retry.ts';

/** More connections than this from one process runs into file-descriptor limits; use more agents. */
export const MAX_LEVEL = 10_000;

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

export const Levels = z
  .array(z.number().int('must be whole numbers (concurrency)').min(1, 'must be at least 1').max(MAX_LEVEL, `must be at most ${MAX_LEVEL}`))
  .min(1, 'needs at least one level')
  .refine((xs) => new Set(xs).size === xs.length, 'must not repeat a level (its later window would replace the earlier one)');

/** What a sweep needs. Everything but target, levels, duration and the run's service/release has a default. */
export const SweepConfig = z
  .object({
    target: HttpUrl,
    levels: Levels,
    durationMs: z.number().positive('must be longer than 0'),
    warmupMs: z.number().nonnegative().default(0),
    run: CreateRunBody.pick({ service: true, name: true, release: true, git_sha: true, tags: true }),
    request: z
      .object({
        /** Default GET, or POST when there is a body. */
        method: z.string().regex(HTTP_TOKEN, 'must be an HTTP method such as GET or POST').optional(),
        headers: z.record(z.string().regex(HTTP_TOKEN, 'header names must be HTTP tokens'), z.string()).default({}),
        body: z.union([z.string(), z.instanceof(Buffer)]).optional(),
        timeoutMs: z.number().positive().default(30_000),
      })
      .prefault({}),
    api: HttpUrl.default('http://127.0.0.1:4000'),
    web: HttpUrl.default('http://127.0.0.1:3000'),
    agentId: z.string().min(1).max(128).default(() => `${hostname()}-${process.pid}`.slice(0, 128)),
    flushIntervalMs: z.number().positive().default(1_000),
    maxBatchEvents: z.number().int().min(1).max(MAX_BATCH_EVENTS).default(20_000),
    retry: z
      .object({ initialDelayMs: z.number().nonnegative(), maxDelayMs: z.number().nonnegative(), giveUpAfterMs: z.number().nonnegative() })
      .default(DEFAULT_RETRY_POLICY),
  })
  .transform((c) => ({
    ...c,
    request: { ...c.request, method: (c.request.method ?? (c.request.body === undefined ? 'GET' : 'POST')).toUpperCase() },
    agentHost: hostname(),
    agentCores: availableParallelism(),
  }));

export type SweepInput = z.input<typeof SweepConfig>;
export type SweepConfig = z.output<typeof SweepConfig>;
