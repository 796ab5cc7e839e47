/**
 * Server-side configuration, parsed once. Read at request time (not inlined at build time), so one
 * build can be started against any API with `KNEEBOARD_API_URL=… next start`.
 */
import { z } from 'zod';
import { DEFAULT_API_URL } from '@kneeboard/contracts/defaults';

const ServerEnv = z.object({
  KNEEBOARD_API_URL: z
    .url({ protocol: /^https?$/, error: `must be an http(s) URL such as ${DEFAULT_API_URL}` })
    .default(DEFAULT_API_URL)
    .transform((u) => u.replace(/\/+$/, '')),
  /**
   * A token the dashboard sends to the API (its reads, and writes its users make: labels, notes,
   * short links) when the API requires tokens. Everyone who can open the dashboard acts with it:
   * put the dashboard behind your single sign-on and give it a `write` token.
   */
  KNEEBOARD_API_TOKEN: z.string().regex(/^\S+$/, 'must be a token, without spaces').optional(),
});
export type ServerEnv = z.infer<typeof ServerEnv>;

export function parseServerEnv(source: Record<string, string | undefined>): ServerEnv {
  const raw = {
    ...(source.KNEEBOARD_API_URL?.trim() ? { KNEEBOARD_API_URL: source.KNEEBOARD_API_URL.trim() } : {}),
    ...(source.KNEEBOARD_API_TOKEN?.trim() ? { KNEEBOARD_API_TOKEN: source.KNEEBOARD_API_TOKEN.trim() } : {}),
  };
  const parsed = ServerEnv.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue?.path.join('.') || 'KNEEBOARD_API_URL';
    // Never echo a token back into a log.
    const got = name === 'KNEEBOARD_API_TOKEN' ? '' : ` (got "${source.KNEEBOARD_API_URL}")`;
    throw new Error(`Invalid environment: ${name} ${issue?.message ?? 'is invalid'}${got}`);
  }
  return parsed.data;
}

let cached: ServerEnv | undefined;

export function serverEnv(): ServerEnv {
  cached ??= parseServerEnv(process.env);
  return cached;
}
