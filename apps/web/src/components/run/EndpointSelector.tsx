'use client';

import { formatPercent } from '@kneeboard/contracts/figures';
import { useRouter } from 'next/navigation';
import { useTransition } from 'react';
import type { EndpointOption } from '../../lib/endpoints-view.ts';

/**
 * Which curve the page draws: the whole run or one request name's. The choice is the URL's
 * (`name=`), so a reload or a shared link shows the same endpoint; the server draws it. Names are
 * the user's strings: rendered as text only.
 */
export function EndpointSelector({ options, current, hrefFor }: { options: EndpointOption[]; current: string | null; hrefFor: (name: string | null) => string }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <label className="endpoint-selector">
      <span className="endpoint-selector-label">Endpoint</span>
      <select
        data-testid="endpoint-select"
        value={current ?? ''}
        title={current ?? 'All requests'}
        aria-busy={pending}
        onChange={(e) => {
          const name = e.target.value === '' ? null : e.target.value;
          startTransition(() => router.push(hrefFor(name)));
        }}
      >
        <option value="">All requests</option>
        {options.map((o) => (
          <option key={o.name} value={o.name}>
            {`${o.name} · ${formatPercent(o.share)}`}
          </option>
        ))}
      </select>
      {pending ? <span className="muted">loading…</span> : null}
    </label>
  );
}
