import { createHash, randomBytes } from 'node:crypto';

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** SHA-256, hex: what is stored and looked up. Enough for 256-bit random secrets (see migration 020). */
export const sha256Hex = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

function randomId(length = 10): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const b of bytes) id += ID_ALPHABET[b % ID_ALPHABET.length];
  return id;
}

/**
 * A new token: `kb_<id>_<secret>`, the id public (listing, revoking, logs), the secret 32 random
 * bytes. The prefix lets secret scanners and people recognise a Kneeboard token.
 */
export function newToken(): { id: string; token: string; sha256: string } {
  const id = randomId();
  const token = `kb_${id}_${randomBytes(32).toString('base64url')}`;
  return { id, token, sha256: sha256Hex(token) };
}
