import type { TokenInfo } from '@kneeboard/contracts';

/** The id the API gives the admin token KNEEBOARD_ADMIN_TOKEN sets (apps/api access/token-admin.ts). */
export const ENV_ADMIN_ID = 'env_admin';

/**
 * What must be typed to revoke this token, or null when one click will do. The bootstrap admin
 * token asks for its name: revoking it locks out everyone who signs in with it, and a restart with
 * the same environment does not bring it back (only a new KNEEBOARD_ADMIN_TOKEN value does). The
 * API refuses it without the same confirmation.
 */
export function confirmationFor(token: Pick<TokenInfo, 'id' | 'name'>): string | null {
  return token.id === ENV_ADMIN_ID ? token.name : null;
}

/** Typed exactly (surrounding spaces aside): no case folding, so it is a deliberate act. */
export const confirmed = (expected: string, typed: string): boolean => typed.trim() === expected;
