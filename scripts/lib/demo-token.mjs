// Which token the demo sweeps started by scripts/up.mjs send. With tokens required
// (KNEEBOARD_AUTH=required, token reads, or an admin token given), an agent without one gets 401;
// the API's own generated admin token is printed once and never reachable from here, so this
// script makes the admin token itself when none is given and hands it to the API and the sweeps.
// Plain Node, no dependencies: it runs before anything is built.
import { randomBytes } from 'node:crypto';

/**
 * @param {Record<string, string | undefined>} env
 * @returns {{ adminToken: string | undefined, sweepToken: string | undefined, generated: boolean }}
 */
export function demoTokens(env) {
  const given = env.KNEEBOARD_ADMIN_TOKEN?.trim() || undefined;
  const required = env.KNEEBOARD_AUTH === 'required' || env.KNEEBOARD_READ === 'token' || given !== undefined;
  if (!required) return { adminToken: given, sweepToken: env.KNEEBOARD_TOKEN || undefined, generated: false };
  const adminToken = given ?? randomBytes(32).toString('hex');
  // A token the user set for agents wins; otherwise the sweeps act as the admin who started all this.
  return { adminToken, sweepToken: env.KNEEBOARD_TOKEN || adminToken, generated: given === undefined };
}
