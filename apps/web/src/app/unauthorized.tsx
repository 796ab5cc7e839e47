import Link from 'next/link';
import { requestCredential } from '../lib/server-credentials.ts';

/**
 * 401 from the API on a page: a share link that was revoked or has expired, or a server that needs
 * a token to read (KNEEBOARD_READ=token) and this browser has none — or an admin token that has
 * since been revoked.
 */
export default async function Unauthorized() {
  const credential = await requestCredential();
  if (credential.kind === 'share') {
    return (
      <div className="panel notice" data-testid="share-revoked">
        <h1>This link was revoked or has expired</h1>
        <p>The read-only link you opened no longer works. Ask whoever shared it for a new one.</p>
      </div>
    );
  }
  return (
    <div className="panel notice" data-testid="sign-in-needed">
      <h1>Sign in to read this Kneeboard</h1>
      <p>
        {credential.kind === 'session' ? 'Your token was revoked or has expired. ' : ''}This server shows runs only to holders of a token or of a share link.
      </p>
      <p className="muted">
        <Link href="/tokens">Sign in with an admin token</Link>
      </p>
    </div>
  );
}
