'use client';

import { useActionState, useId, useState } from 'react';
import { revokeConfirmedAction, type RevokeState } from '../../app/tokens/actions.ts';
import { confirmed } from './revoke-confirm.ts';

/**
 * Revoke for the bootstrap admin token: says what it costs, and the button stays disabled until
 * the token's name is typed. The server action and the API check the same name again.
 */
export function GuardedRevoke({ id, name }: { id: string; name: string }) {
  const [state, action, pending] = useActionState<RevokeState, FormData>(revokeConfirmedAction, {});
  const [typed, setTyped] = useState('');
  const hint = useId();
  return (
    <form action={action} className="guarded-revoke" data-testid="token-revoke-guarded">
      <input type="hidden" name="id" value={id} />
      <p id={hint} className="muted small">
        The admin token <code>{name}</code> sets: revoking it locks out everyone who signs in with it, and a restart does not bring it back (only a new value does). Type <code>{name}</code> to revoke it.
      </p>
      <input type="text" name="confirm" value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} aria-label={`Type ${name} to confirm`} aria-describedby={hint} data-testid="token-revoke-confirm" />
      <button type="submit" disabled={pending || !confirmed(name, typed)} aria-label={`Revoke ${name}`} data-testid="token-revoke">
        Revoke
      </button>
      {state.error ? (
        <p className="inline-error" role="alert" data-testid="token-revoke-error">
          {state.error}
        </p>
      ) : null}
    </form>
  );
}
