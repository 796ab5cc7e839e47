'use client';

import { useState } from 'react';
import { copyText } from '../share/copy.ts';
import './copy-field.css';

/** A read-only value with a Copy button; when the browser will not copy, the text is selected for copying by hand. */
export function CopyField({ value, label, testId }: { value: string; label: string; testId: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <span className="copy-field">
      <input type="text" readOnly value={value} aria-label={label} data-testid={testId} onFocus={(e) => e.currentTarget.select()} />
      <button type="button" onClick={() => void copyText(value).then(setCopied)} data-testid={`${testId}-copy`}>
        Copy
      </button>
      <span className="muted small" aria-live="polite">
        {copied === true ? 'copied' : copied === false ? 'select and copy' : ''}
      </span>
    </span>
  );
}
