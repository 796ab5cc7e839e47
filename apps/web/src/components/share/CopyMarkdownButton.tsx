'use client';

import { fetchCompareMarkdown } from '../../lib/client-api.ts';
import { useCopyToClipboard } from './copy.ts';

/**
 * The comparison as Markdown for a pull request (ENDPOINTS.compareMarkdown, linking back to this
 * dashboard), copied to the clipboard and shown for copying by hand when the browser will not.
 */
export function CopyMarkdownButton({ apiQuery }: { apiQuery: string }) {
  const { state, copy, reset } = useCopyToClipboard();

  const run = () =>
    copy(async () => ({
      text: await fetchCompareMarkdown(apiQuery, window.location.origin, `${window.location.pathname}${window.location.search}`),
    }));

  return (
    <span className="copy-md">
      <button type="button" onClick={() => void run()} disabled={state.kind === 'pending'} data-testid="copy-markdown">
        {state.kind === 'done' && state.copied ? 'Markdown copied' : 'Copy Markdown'}
      </button>
      {state.kind === 'done' ? (
        <div className="popover" data-testid="markdown-popover">
          <div className="snippet-head">
            <span>{state.copied ? 'Copied — paste it into the pull request.' : 'Select and copy:'}</span>
            <button type="button" className="small-button" onClick={reset} aria-label="Close">
              ×
            </button>
          </div>
          <textarea readOnly value={state.text} rows={10} data-testid="markdown-text" onFocus={(e) => e.currentTarget.select()} />
        </div>
      ) : null}
      {state.kind === 'error' ? (
        <span className="inline-error" role="alert">
          {state.message}
        </span>
      ) : null}
    </span>
  );
}
