'use client';

import { useRouter } from 'next/navigation';
import { useTransition } from 'react';
import type { ActiveSlo } from '../../lib/capacity-view.ts';
import { compareViewPath, type CompareViewState } from '../../lib/view-state.ts';
import { CompareSloField } from '../compare/CompareSloField.tsx';

/** The review's SLO field: the report is drawn on the server, so a new SLO reloads it at its own URL (`slo=`). */
export function ReviewSloField({ state, slo, tag }: { state: CompareViewState; slo: ActiveSlo | null; tag: string | null }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return <CompareSloField slo={slo} tag={tag} updating={pending} onChange={(setting) => startTransition(() => router.replace(compareViewPath({ ...state, slo: setting }, 'review')))} />;
}
