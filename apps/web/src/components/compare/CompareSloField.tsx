'use client';

import type { ActiveSlo } from '../../lib/capacity-view.ts';
import type { SloSetting } from '../../lib/view-state.ts';
import '../run/capacity.css';
import { SloForm } from '../run/SloForm.tsx';

/**
 * The comparison's SLO field: capacity is compared at these SLOs for base and every head (the
 * lines are in the verdict banners). Read by the contracts' parser as the run page's field is; by
 * default the base run's own `slo` tag.
 */
export function CompareSloField({ slo, tag, updating = false, onChange }: { slo: ActiveSlo | null; tag: string | null; updating?: boolean; onChange: (setting: SloSetting) => void }) {
  return (
    <section className="panel capacity-panel compare-slo no-print" data-testid="compare-slo" aria-label="Capacity under an SLO">
      <SloForm
        slo={slo}
        tag={tag}
        onChange={onChange}
        resetLabel="back to the base run’s SLO"
        status={
          <span className="muted small" aria-live="polite">
            {updating ? 'judging every level…' : slo === null ? 'compare the capacity each side serves within them' : slo.source === 'tag' ? 'the base run’s own SLO (--slo)' : null}
          </span>
        }
      />
    </section>
  );
}
