'use client';

import { useActionState } from 'react';
import { signIn, type SignInState } from '../../app/tokens/actions.ts';

/** Paste an admin token once; the server keeps it in an httpOnly cookie (page scripts never see it again). */
export function SignInForm({ reason }: { reason: string | null }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signIn, {});
  return (
    <form action={action} className="panel token-form" data-testid="sign-in">
      <h2>Sign in with an admin token</h2>
      {reason ? <p className="inline-error">{reason}</p> : null}
      <p className="muted small">
        Paste a token made by <code>kneeboard token create --scope admin</code> or printed at the API’s first start. This browser keeps it for 8 hours in a cookie page scripts cannot read.
      </p>
      <label className="field">
        Admin token
        <input type="password" name="token" autoComplete="off" required spellCheck={false} data-testid="sign-in-token" />
      </label>
      <button type="submit" className="primary" disabled={pending} data-testid="sign-in-submit">
        {pending ? 'Checking…' : 'Sign in'}
      </button>
      {state.error ? (
        <p className="inline-error" role="alert" data-testid="sign-in-error">
          {state.error}
        </p>
      ) : null}
    </form>
  );
}
