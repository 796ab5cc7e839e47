'use client';

import { usePathname, useSearchParams } from 'next/navigation';
import type { ReactNode } from 'react';
import { recomputeQuery } from '../../lib/compare-noise.ts';

/** This view again, with the newer noise basis the API offered (`noise_asof`): a choice the reader makes, not a swap. */
export function RecomputeLink({ asof, children }: { asof: number; children: ReactNode }) {
  const path = usePathname();
  const search = useSearchParams();
  return (
    // A full load, not a client-side move: the view's state is read from its URL once, on arrival.
    <a href={`${path}${recomputeQuery(search.toString(), asof)}`} data-testid="recompute-noise-basis">
      {children}
    </a>
  );
}
