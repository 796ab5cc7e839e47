import type { RunDetail } from '@kneeboard/contracts';
import type { ActiveSlo } from '../../lib/capacity-view.ts';
import { runSloTag } from '../../lib/capacity-view.ts';
import { capacityLine, costLines } from '../../lib/compare-capacity.ts';
import { CostChanges } from '../compare/CostChanges.tsx';
import { ReviewSloField } from './ReviewSloField.tsx';
import Link from 'next/link';
import { runSeries } from '../../lib/compare-series.ts';
import { deltaRows, verdictSummary } from '../../lib/compare-table.ts';
import { comparisonTitle } from '../../lib/comparison-title.ts';
import { formatTimestamp } from '../../lib/format.ts';
import { compareViewPath, formatMinEffect, type CompareViewState } from '../../lib/view-state.ts';
import type { CompareStats } from '../compare/CompareView.tsx';
import { ComparedRuns } from '../compare/ComparedRuns.tsx';
import { DeltaTable } from '../compare/DeltaTable.tsx';
import { StatsFootnote } from '../compare/StatsFootnote.tsx';
import { VerdictBanner } from '../compare/VerdictBanner.tsx';
import { ShareLinkButton } from '../share/ShareLinkButton.tsx';
import { pinnedCompareState } from '../../lib/share-view.ts';
import { PrintButton } from './PrintButton.tsx';
import { ReviewCharts } from './ReviewCharts.tsx';
import { RunCard } from './RunCard.tsx';

/**
 * The comparison as a printable report, one section per page: the verdicts, the overlaid curves,
 * the level-by-level changes, and each run's metadata with its note. No hover, no buttons in print.
 */
export function ReviewReport({
  details,
  sizes,
  stats,
  slo = null,
  state,
  generatedAt,
  readOnly = false,
}: {
  details: RunDetail[];
  sizes: number[];
  stats: CompareStats;
  /** The SLOs the statistics' capacity was judged at (the URL's, else the base run's tag). */
  slo?: ActiveSlo | null;
  state: CompareViewState;
  generatedAt: number;
  /** A share link's reader cannot make links: the Read-only link button is left out. */
  readOnly?: boolean;
}) {
  const series = runSeries(details, sizes);
  const groups = series.filter((s) => s.member === 0);
  const base = series[0];
  const parameter = details[0]?.run.parameter ?? 'level';
  const title = comparisonTitle(details, groups.map((s) => s.label));
  return (
    <article className="review" data-testid="review">
      <div className="review-actions no-print">
        <Link href={compareViewPath(state)}>← Interactive view</Link>
        <PrintButton />
        {readOnly ? null : <ShareLinkButton runs={details.map((d) => d.run.id)} path={compareViewPath(pinnedCompareState(state, details, sizes), 'review')} label={`review ${title}`} />}
      </div>

      <section className="review-section">
        <p className="review-eyebrow">Kneeboard · performance review</p>
        <h1 data-testid="review-title">{title}</h1>
        <p className="muted small review-meta">
          {details.length} runs{sizes.some((n) => n > 1) ? ` in ${sizes.length} groups (${sizes.join(' · ')})` : ''} · swept {parameter} ·{' '}
          <span data-testid="review-min-effect" title="the smallest change the verdicts call; set on the interactive view">
            changes called from {formatMinEffect(stats.ok ? stats.report.settings.min_effect : state.minEffect)}
          </span>{' '}
          · generated {formatTimestamp(generatedAt, 'UTC')} UTC
        </p>
        <h2 className="review-h2">Verdict</h2>
        <ReviewSloField state={state} slo={slo} tag={details[0] ? runSloTag(details[0].run) : null} />
        {stats.ok && base ? (
          stats.report.heads.map((h, i) => {
            const s = groups[i + 1];
            return <VerdictBanner key={h.run.id} headLabel={s?.label ?? h.run.release} baseLabel={base.label} colour={s?.colour ?? '#000'} summary={verdictSummary(h, parameter)} capacity={capacityLine(h, slo)} />;
          })
        ) : (
          <p className="panel notice error">No statistics: {stats.ok ? 'no head run' : stats.error}</p>
        )}
        <h2 className="review-h2">Runs</h2>
        <ComparedRuns series={series} parameter={parameter} compact />
      </section>

      <section className="review-section">
        <h2 className="review-h2">Curves</h2>
        <ReviewCharts details={details} sizes={sizes} settings={state} heading={title} />
      </section>

      {stats.ok && base ? (
        <section className="review-section">
          <h2 className="review-h2">Level by level</h2>
          {stats.report.heads.map((h, i) => {
            const s = groups[i + 1];
            const rows = deltaRows(h, state.levels);
            return <DeltaTable key={h.run.id} rows={rows} parameter={parameter} headLabel={s?.label ?? h.run.release} baseLabel={base.label} colour={s?.colour ?? '#000'} hidden={h.levels.length - rows.length} />;
          })}
          {stats.report.heads.some((h) => costLines(h) !== null) ? (
            <>
              <h3 className="review-cost-title">What it costs</h3>
              {stats.report.heads.map((h, i) => {
                const lines = costLines(h);
                const s = groups[i + 1];
                return lines ? <CostChanges key={h.run.id} lines={lines} headLabel={s?.label ?? h.run.release} baseLabel={base.label} colour={s?.colour ?? '#000'} /> : null;
              })}
            </>
          ) : null}
          <StatsFootnote settings={stats.report.settings} />
        </section>
      ) : null}

      <section className="review-section">
        <h2 className="review-h2">Runs and notes</h2>
        <div className="run-cards">
          {series.map((s, i) => (details[i] ? <RunCard key={s.key} series={s} detail={details[i]} /> : null))}
        </div>
      </section>
    </article>
  );
}
