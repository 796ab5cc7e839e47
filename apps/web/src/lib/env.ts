/**
 * Server-side configuration, parsed once. Read at request time (not inlined at build time), so one
 * build can be started against any API with `KNEEBOARD_API_URL=… next start`.
 */
import { z } from 'zod';

const ServerEnv = z.object({
  KNEEBOARD_API_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:4000' })
    .default('http://127.0.0.1:4000')
    .transform((u) => u.replace(/\/+$/, '')),
});
export type ServerEnv = z.infer<typeof ServerEnv>;

export function parseServerEnv(source: Record<string, string | undefined>): ServerEnv {
  const raw = source.KNEEBOARD_API_URL?.trim() ? { KNEEBOARD_API_URL: source.KNEEBOARD_API_URL.trim() } : {};
  const parsed = ServerEnv.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid environment: ${issue?.path.join('.') ?? 'KNEEBOARD_API_URL'} ${issue?.message ?? 'is invalid'} (got "${source.KNEEBOARD_API_URL}")`);
  }
  return parsed.data;
}

let cached: ServerEnv | undefined;

export function serverEnv(): ServerEnv {
  cached ??= parseServerEnv(process.env);
  return cached;
}
