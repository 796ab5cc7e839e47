import type { Metadata } from 'next';
import { SignInForm } from '../../components/tokens/SignInForm.tsx';
import { CreateTokenForm } from '../../components/tokens/CreateTokenForm.tsx';
import { TokensTable } from '../../components/tokens/TokensTable.tsx';
import { requestCredential } from '../../lib/server-credentials.ts';
import { listTokens } from '../../lib/token-api.ts';
import { signOut } from './actions.ts';
import './tokens.css';

export const metadata: Metadata = { title: 'Tokens' };

/**
 * Token management for admins. The browser signs in by pasting an admin token once (kept by the
 * Next.js server in an httpOnly, SameSite=Strict cookie); the list, creation and revocation are
 * server actions calling the API with it. Secrets are shown once, right after creation.
 */
export default async function TokensPage() {
  const credential = await requestCredential();
  const list = await listTokens(credential);
  if (!list.ok && (list.status === 401 || list.status === 403)) {
    return (
      <>
        <div className="page-title">
          <h1>Tokens</h1>
        </div>
        <SignInForm reason={credential.kind === 'none' ? null : list.status === 403 ? 'The token this browser holds is not an admin token.' : 'The token this browser holds was revoked or has expired.'} />
      </>
    );
  }
  return (
    <>
      <div className="page-title">
        <h1>Tokens</h1>
        {credential.kind === 'session' ? (
          <form action={signOut}>
            <button type="submit" data-testid="sign-out">
              Sign out
            </button>
          </form>
        ) : null}
      </div>
      {credential.kind === 'none' && list.ok ? (
        <p className="panel notice open-api-notice" data-testid="open-api-notice">
          This API is open (no token required, the loopback default): anyone who can reach it may manage tokens. Tokens take effect once the API requires them.
        </p>
      ) : null}
      {list.ok ? (
        <>
          <CreateTokenForm />
          <TokensTable tokens={list.value} now={Date.now()} />
        </>
      ) : (
        <div className="panel notice error" role="alert">
          <h2>Cannot list tokens</h2>
          <p>{list.message}</p>
        </div>
      )}
    </>
  );
}
