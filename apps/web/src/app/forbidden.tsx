import Link from 'next/link';
import { requestCredential } from '../lib/server-credentials.ts';

/** 403 from the API on a page: most often a share link's reader asking for more than its view. */
export default async function Forbidden() {
  const credential = await requestCredential();
  if (credential.kind === 'share') {
    return (
      <div className="panel notice" data-testid="share-forbidden">
        <h1>This link shows one view only</h1>
        <p>A share link opens the run or the comparison it was made for. It cannot list other runs or services.</p>
        <p className="muted">Use the link you were sent (or your browser’s Back button) to return to that view.</p>
      </div>
    );
  }
  return (
    <div className="panel notice" data-testid="forbidden">
      <h1>Your token cannot open this page</h1>
      <p className="muted">
        <Link href="/tokens">Sign in with another token</Link>
      </p>
    </div>
  );
}
