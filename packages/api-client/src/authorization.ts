/**
 * The one place the API's credential header is spelled: `Authorization: Bearer <token>` for a
 * token, nothing without one. Every caller (web server, proxy, CLI, SDK, fleet) builds it here.
 */
export function authorization(token: string | null | undefined): Record<string, string> {
  return token ? { authorization: bearer(token) } : {};
}

/** The header's value alone, for a caller that sets it on its own Headers object. */
export const bearer = (token: string): string => `Bearer ${token}`;
