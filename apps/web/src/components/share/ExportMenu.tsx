'use client';

import { useState } from 'react';
import { embedSnippets, exportFileName } from '../../lib/chart-export.ts';
import { downloadBlob } from '../export/snapshot.ts';
import { copyText } from './copy.ts';
import { useOrigin } from './useOrigin.ts';

export interface ExportLink {
  label: string;
  href: string;
  /** Saved under this name (a `download` link) rather than opened. */
  fileName?: string;
}

export interface ExportMenuProps {
  /** CSV and JSON from the API. */
  links: ExportLink[];
  /** Data assembled in the page, saved as a JSON file. */
  json?: { label: string; fileParts: string[]; data: () => unknown };
  /** The API's server-rendered SVG of this view, to embed elsewhere. */
  embed: { imagePath: string; viewPath: string; alt: string; caption?: string | undefined; markdownAfter?: string | undefined };
}

function Snippet({ label, text, testId }: { label: string; text: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="snippet">
      <div className="snippet-head">
        <span>{label}</span>
        <button type="button" className="small-button" onClick={() => void copyText(text).then(setCopied)}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <textarea readOnly value={text} rows={2} data-testid={testId} onFocus={(e) => e.currentTarget.select()} />
    </div>
  );
}

/** Data and embeds for elsewhere: CSV/JSON downloads and Markdown/HTML that show the API's SVG. */
export function ExportMenu({ links, json, embed }: ExportMenuProps) {
  const origin = useOrigin();
  const snippets = embedSnippets(origin, embed.imagePath, embed.viewPath, embed.alt, embed.caption, embed.markdownAfter);
  return (
    <details className="menu no-print" data-testid="export-menu">
      <summary className="button">Export</summary>
      <div className="menu-body">
        <h3>Data</h3>
        <ul className="menu-links">
          {json ? (
            <li>
              <button
                type="button"
                className="link-button"
                data-testid="export-json"
                onClick={() => downloadBlob(new Blob([JSON.stringify(json.data(), null, 2)], { type: 'application/json' }), exportFileName(json.fileParts, 'json'))}
              >
                {json.label}
              </button>
            </li>
          ) : null}
          {links.map((l) => (
            <li key={l.href}>
              <a href={l.href} download={l.fileName} data-testid="export-link">
                {l.label}
              </a>
            </li>
          ))}
        </ul>
        <h3>Embed</h3>
        <p className="muted small">
          The API draws this view as an SVG at <a href={embed.imagePath}>{embed.imagePath.split('?')[0]}</a>, for READMEs, wikis and pull requests.
        </p>
        <Snippet label="Markdown" text={snippets.markdown} testId="embed-markdown" />
        <Snippet label="HTML" text={snippets.html} testId="embed-html" />
      </div>
    </details>
  );
}
