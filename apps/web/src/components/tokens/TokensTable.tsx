import type { TokenInfo } from '@kneeboard/contracts';
import { revokeTokenAction } from '../../app/tokens/actions.ts';
import { Time } from '../common/Time.tsx';
import { GuardedRevoke } from './GuardedRevoke.tsx';
import { confirmationFor } from './revoke-confirm.ts';

function status(t: TokenInfo, now: number): 'revoked' | 'expired' | 'active' {
  if (t.revoked_at !== null) return 'revoked';
  if (t.expires_at !== null && t.expires_at <= now) return 'expired';
  return 'active';
}

/**
 * Every token, newest first: never a secret (the API does not keep them). When a token was last used
 * is not tracked: recording it would put a write on every request's path. The bootstrap admin
 * token's Revoke asks for its name typed (GuardedRevoke); the others revoke in one click.
 */
export function TokensTable({ tokens, now }: { tokens: TokenInfo[]; now: number }) {
  const rows = [...tokens].sort((a, b) => b.created_at - a.created_at);
  return (
    <div className="panel table-wrap tokens-wrap">
      <table className="data" data-testid="tokens-table">
        <caption className="sr-only">API tokens</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Id</th>
            <th scope="col">Scope</th>
            <th scope="col">Limited to</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="sr-only">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => {
            const s = status(t, now);
            return (
              <tr key={t.id} data-testid={`token-row-${t.id}`}>
                <td>{t.name}</td>
                <td>
                  <code>{t.id}</code>
                </td>
                <td>{t.scope}</td>
                <td>{t.scope === 'share' ? `${t.runs?.length ?? 0} run${t.runs?.length === 1 ? '' : 's'}` : (t.service ?? 'any service')}</td>
                <td>
                  <Time ms={t.created_at} />
                </td>
                <td>{t.expires_at === null ? 'never' : <Time ms={t.expires_at} />}</td>
                <td data-testid="token-status">{s}</td>
                <td>
                  {s === 'active' && confirmationFor(t) !== null ? (
                    <GuardedRevoke id={t.id} name={confirmationFor(t) as string} />
                  ) : s === 'active' ? (
                    <form action={revokeTokenAction}>
                      <input type="hidden" name="id" value={t.id} />
                      <button type="submit" aria-label={`Revoke ${t.name}`} data-testid="token-revoke">
                        Revoke
                      </button>
                    </form>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
