'use server';

/**
 * Server actions of the token page and the Share button. Next.js refuses a server action whose
 * Origin is not this host, and the session cookie is SameSite=Strict: another site can neither call
 * these nor make the browser send the admin's token.
 */
import { CreateTokenBody, RunId, TokenId, TokenScope } from '@kneeboard/contracts';
import { revalidatePath } from 'next/cache';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { cookieOptions, isHttps, SESSION_COOKIE, TokenText } from '../../lib/credentials.ts';
import { requestCredential } from '../../lib/server-credentials.ts';
import { createToken, listTokens, revokeToken } from '../../lib/token-api.ts';
import { confirmationFor, confirmed, ENV_ADMIN_ID } from '../../components/tokens/revoke-confirm.ts';

const DAY_MS = 24 * 3600 * 1000;
/** Expiry choices, in days; 0 is never. */
const ExpiryDays = z.coerce.number().int().min(0).max(366);
const expiresAt = (days: number) => (days === 0 ? {} : { expires_at: Date.now() + days * DAY_MS });

export type SignInState = { error?: string };

/** Paste an admin token once: checked against the API, then kept in an httpOnly cookie for this browser. */
export async function signIn(_prev: SignInState, form: FormData): Promise<SignInState> {
  const parsed = TokenText.safeParse(String(form.get('token') ?? '').trim());
  if (!parsed.success) return { error: 'That is not a token: paste all of it, without spaces (tokens are at least 24 characters).' };
  const check = await listTokens({ kind: 'session', token: parsed.data });
  if (!check.ok) return { error: check.status === 403 ? 'This token is not an admin token.' : `The API refused this token: ${check.message}` };
  (await cookies()).set(SESSION_COOKIE, parsed.data, cookieOptions('session', isHttps(await headers())));
  redirect('/tokens');
}

export async function signOut(): Promise<void> {
  (await cookies()).delete(SESSION_COOKIE);
  redirect('/tokens');
}

export type CreateState = { error?: string; created?: { name: string; scope: string; token: string } };

const CreateForm = z.object({
  name: z.string(),
  scope: TokenScope.exclude(['share']),
  service: z.string().trim().optional(),
  expires: ExpiryDays,
});

export async function createTokenAction(_prev: CreateState, form: FormData): Promise<CreateState> {
  const raw = CreateForm.safeParse({ name: form.get('name') ?? '', scope: form.get('scope'), service: form.get('service') ?? undefined, expires: form.get('expires') ?? 0 });
  if (!raw.success) return { error: raw.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const { name, scope, service, expires } = raw.data;
  const body = CreateTokenBody.safeParse({ name, scope, ...(service ? { service } : {}), ...expiresAt(expires) });
  if (!body.success) return { error: body.error.issues.map((i) => `${i.path.join('.') || 'token'}: ${i.message}`).join('; ') };
  const res = await createToken(body.data, await requestCredential());
  if (!res.ok) return { error: res.message };
  revalidatePath('/tokens');
  return { created: { name: res.value.name, scope: res.value.scope, token: res.value.token } };
}

export async function revokeTokenAction(form: FormData): Promise<void> {
  const id = TokenId.safeParse(form.get('id'));
  // The bootstrap admin token is revoked through revokeConfirmedAction only (the API refuses it without its name).
  if (id.success && id.data !== ENV_ADMIN_ID) await revokeToken(id.data, await requestCredential());
  revalidatePath('/tokens');
}

export type RevokeState = { error?: string };

/** Revoke with the token's name typed: the bootstrap admin token's way (see components/tokens/revoke-confirm.ts). */
export async function revokeConfirmedAction(_prev: RevokeState, form: FormData): Promise<RevokeState> {
  const id = TokenId.safeParse(form.get('id'));
  if (!id.success) return { error: 'No such token.' };
  const credential = await requestCredential();
  const list = await listTokens(credential);
  if (!list.ok) return { error: list.message };
  const token = list.value.find((t) => t.id === id.data);
  const expected = token ? confirmationFor(token) : null;
  if (!token || expected === null) return { error: 'This token needs no confirmation.' };
  if (!confirmed(expected, String(form.get('confirm') ?? ''))) return { error: `Type ${expected} exactly to revoke it.` };
  const res = await revokeToken(id.data, credential, expected);
  if (!res.ok) return { error: res.message };
  revalidatePath('/tokens');
  return {};
}

// The label only names the token in the list: a long title is cut, not refused.
const ShareInput = z.object({ runs: z.array(RunId).min(1).max(64), label: z.string().transform((l) => Array.from(l).slice(0, 90).join('')), days: ExpiryDays });

/** A share token for exactly these runs (one run, or one comparison's); the caller builds the URL. */
export async function createShareLink(input: { runs: string[]; label: string; days: number }): Promise<{ token: string; expiresAt: number | null } | { error: string }> {
  const parsed = ShareInput.safeParse(input);
  if (!parsed.success) return { error: `cannot share this view: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const { runs, label, days } = parsed.data;
  const res = await createToken({ name: `share: ${label}`, scope: 'share', runs, ...expiresAt(days) }, await requestCredential());
  if (!res.ok) {
    if (res.status === 401 || res.status === 403) return { error: 'Making a share link needs an admin (sign in on the Tokens page) or a write token for the dashboard.' };
    return { error: res.message };
  }
  return { token: res.value.token, expiresAt: res.value.expires_at };
}
