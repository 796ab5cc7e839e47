import type { VerdictSummary } from '../../lib/compare-table.ts';
import { RecomputeLink } from './RecomputeLink.tsx';
import { RunSwatch } from './RunSwatch.tsx';

/**
 * One head's overall verdict against the base: the API's sentence and the three numbers behind it,
 * and — with SLOs — the capacity each side serves within them (`capacity`, the API's sentence).
 */
export function VerdictBanner({ headLabel, baseLabel, colour, summary, capacity = null }: { headLabel: string; baseLabel: string; colour: string; summary: VerdictSummary; capacity?: string | null }) {
  return (
    <section className={`panel verdict-banner tone-${summary.tone}`} data-testid="verdict-banner" data-verdict={summary.verdict}>
      <header className="verdict-head">
        <RunSwatch colour={colour} dashed={false} />
        <h2>
          {headLabel} <span className="muted">vs</span> {baseLabel}
        </h2>
        <span className={`verdict-pill tone-${summary.tone}`}>{summary.verdict}</span>
      </header>
      <p className="verdict-summary" data-testid="verdict-summary">
        {summary.summary}
      </p>
      {capacity !== null ? (
        <p className="verdict-capacity" data-testid="verdict-capacity">
          <strong>Capacity:</strong> {capacity}
        </p>
      ) : null}
      {summary.notComparable.length > 0 ? (
        <p className="verdict-flags" data-testid="verdict-flags">
          <span aria-hidden="true">⚠ </span>Not comparable at {summary.notComparable.join(', ')}: the load generator, not the service, was the limit there (see the table).
        </p>
      ) : null}
      <p className={`verdict-noise noise-${summary.noise.basis.replace(/ /g, '-')}`} data-testid="verdict-noise" data-basis={summary.noise.basis} data-base-runs={summary.noise.baseRuns} data-head-runs={summary.noise.headRuns}>
        <strong data-testid="verdict-interval">{summary.noise.interval}.</strong> {summary.noise.note}
      </p>
      {summary.noise.method ? (
        <p className="verdict-method muted small" data-testid="verdict-method">
          {summary.noise.method}
        </p>
      ) : null}
      {summary.noise.newer ? (
        <p className="verdict-newer no-print" data-testid="verdict-newer-basis">
          A newer noise basis exists: {summary.noise.newer.runs} more repeat{summary.noise.newer.runs === 1 ? '' : 's'} of this service since this comparison&apos;s —{' '}
          <RecomputeLink asof={summary.noise.newer.asof}>recompute</RecomputeLink>
        </p>
      ) : null}
      <dl className="verdict-stats">
        {summary.stats.map((s) => (
          <div key={s.label} className={`tone-${s.tone}`}>
            <dt>{s.label}</dt>
            <dd>
              <strong>{s.value}</strong>
              <span className="muted small">{s.detail}</span>
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
