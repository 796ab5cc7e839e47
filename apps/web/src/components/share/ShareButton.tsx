'use client';

import { createShortLink } from '../../lib/client-api.ts';
import { useCopyToClipboard } from './copy.ts';

/**
 * Stores the view's full URL path as a short link (ENDPOINTS.createLink) and offers `/s/{code}`,
 * copied to the clipboard when the browser allows. A link made for an earlier state of the view
 * is dropped as soon as the view changes.
 */
export function ShareButton({ path }: { path: string }) {
  const { state, copy } = useCopyToClipboard<{ path: string }>();
  const current = state.kind === 'done' && state.path !== path ? { kind: 'idle' as const } : state;

  const share = () =>
    copy(async () => {
      const link = await createShortLink(path);
      return { text: `${window.location.origin}/s/${link.code}`, path };
    });

  return (
    <span className="share">
      <button type="button" className="primary" onClick={() => void share()} disabled={current.kind === 'pending'} data-testid="share">
        {current.kind === 'pending' ? 'Sharing…' : 'Share'}
      </button>
      {current.kind === 'done' ? (
        <span className="share-result" data-testid="share-result">
          <input type="text" readOnly value={current.text} aria-label="Short link" data-testid="share-url" onFocus={(e) => e.currentTarget.select()} />
          <span className="muted small">{current.copied ? 'copied' : 'select and copy'}</span>
        </span>
      ) : null}
      {current.kind === 'error' ? (
        <span className="inline-error" role="alert">
          {current.message}
        </span>
      ) : null}
    </span>
  );
}
