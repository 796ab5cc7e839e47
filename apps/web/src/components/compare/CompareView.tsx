'use client';

import { endpointPath, ENDPOINTS, type CompareResponse, type RunDetail } from '@kneeboard/contracts';
import Link from 'next/link';
import { ListLink } from '../common/ListLink.tsx';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { fetchCompare } from '../../lib/client-api.ts';
import { compareCharts } from '../../lib/compare-series.ts';
import { deltaRows, verdictSummary } from '../../lib/compare-table.ts';
import { comparisonTitle } from '../../lib/comparison-title.ts';
import { compareApiQuery, compareViewPath, comparePairs, queryString, rangeSelection, svgViewPairs, type ChartSettings, type CompareViewState } from '../../lib/view-state.ts';
import { useReplaceUrl } from '../common/useReplaceUrl.ts';
import { CopyMarkdownButton } from '../share/CopyMarkdownButton.tsx';
import { ExportMenu } from '../share/ExportMenu.tsx';
import { ShareButton } from '../share/ShareButton.tsx';
import { ShareLinkButton } from '../share/ShareLinkButton.tsx';
import { pinnedCompareState } from '../../lib/share-view.ts';
import { withNoiseBasis } from '../../lib/compare-noise.ts';
import { ComparedRuns } from './ComparedRuns.tsx';
import { DeltaTable } from './DeltaTable.tsx';
import { OverlayPanels } from './OverlayPanels.tsx';
import { StatsFootnote } from './StatsFootnote.tsx';
import { VerdictBanner } from './VerdictBanner.tsx';
import { ViewToolbar } from './ViewToolbar.tsx';
import { CompareLevelPanel } from '../level/CompareLevelPanel.tsx';
import { withLevelParam } from '../../lib/level-detail.ts';
import { deltaCsv } from '../../lib/delta-csv.ts';
import { exportFileName } from '../../lib/chart-export.ts';
import { downloadBlob } from '../export/snapshot.ts';
import { LevelZoomContext } from '../zoom/LevelZoom.tsx';
import { activeSlo, runSloTag } from '../../lib/capacity-view.ts';
import { capacityLine, costLines } from '../../lib/compare-capacity.ts';
import { CompareSloField } from './CompareSloField.tsx';
import { CostChanges } from './CostChanges.tsx';
import { EndpointChanges } from './EndpointChanges.tsx';

export type CompareStats = { ok: true; report: CompareResponse } | { ok: false; error: string };

/**
 * The comparison: which runs, the verdict per head, the overlaid curves and the level-by-level
 * changes. Its settings live in the URL (kept current with replaceState), so Share, a reload or a
 * copied address all show this exact view.
 */
export function CompareView({
  details,
  sizes,
  stats: initialStats,
  initial,
  slo: initialSlo = null,
  level: initialLevel = null,
  readOnly = false,
}: {
  details: RunDetail[];
  sizes: number[];
  stats: CompareStats;
  initial: CompareViewState;
  /** The SLOs (canonical) the server's statistics judged capacity at; null: none. */
  slo?: string | null;
  /** The level open under *Inside a level* (`&level=8`), kept in the URL like every other setting. */
  level?: number | null;
  /** A share link's reader cannot make links (the API would refuse): Share and Read-only link are left out. */
  readOnly?: boolean;
}) {
  // A single-run side's noise basis goes into the URL at once, so a reload or a link keeps this verdict.
  const [state, setState] = useState(() => withNoiseBasis(initial, initialStats));
  // The SLOs capacity is compared at: the URL's, else the base run's own `slo` tag (as on the run page).
  const baseRun = details[0]?.run;
  const tag = baseRun ? runSloTag(baseRun) : null;
  const slo = baseRun ? activeSlo(state.slo ?? null, baseRun) : null;
  const sloText = slo?.text ?? null;
  // The statistics and the min_effect and SLOs they were computed with; a new one fetches them again.
  const [loaded, setLoaded] = useState({ minEffect: initial.minEffect, slo: initialSlo, stats: initialStats });
  const stats = loaded.stats;
  const updating = loaded.minEffect !== state.minEffect || loaded.slo !== sloText;
  const statsQuery = compareApiQuery(state, sloText);
  useEffect(() => {
    if (!updating) return;
    let stale = false;
    const want = { minEffect: state.minEffect, slo: sloText };
    fetchCompare(statsQuery)
      .then((next) => {
        if (!stale) setLoaded({ ...want, stats: next });
      })
      .catch((err: unknown) => {
        if (!stale) setLoaded({ ...want, stats: { ok: false, error: err instanceof Error ? err.message : String(err) } });
      });
    return () => {
      stale = true;
    };
  }, [updating, statsQuery, state.minEffect, sloText]);
  const [openLevel, setOpenLevel] = useState<number | null>(initialLevel);
  const path = withLevelParam(compareViewPath(state), openLevel);
  useReplaceUrl(path);
  const charts = useMemo(() => compareCharts(details, state, sizes), [details, state, sizes]);
  const base = charts.series[0];
  const parameter = details[0]?.run.parameter ?? 'level';
  const groups = charts.series.filter((s) => s.member === 0);
  const title = comparisonTitle(details, groups.map((s) => s.label));
  const update = (next: Partial<ChartSettings>) => setState((s) => ({ ...s, ...next }));
  const allLevels = charts.allLevels;
  const zoomTo = useCallback((lo: number, hi: number) => setState((s) => ({ ...s, levels: rangeSelection(allLevels, lo, hi) })), [allLevels]);
  const hasFits = details.some((d) => d.analysis.usl_curve.length >= 2);
  const service = base?.run.service ?? '';

  return (
    <div className="compare-view" data-testid="compare-view">
      <div className="crumbs">
        <ListLink href="/services" readOnly={readOnly}>
          Services
        </ListLink>{' '}
        /{' '}
        <ListLink href={`/services/${encodeURIComponent(service)}`} readOnly={readOnly}>
          {service}
        </ListLink>{' '}
        / compare
      </div>
      <div className="page-title compare-title">
        <h1 data-testid="compare-title">{title}</h1>
        <div className="actions no-print">
          {readOnly ? null : <ShareButton path={path} />}
          {readOnly ? null : <ShareLinkButton runs={details.map((d) => d.run.id)} path={withLevelParam(compareViewPath(pinnedCompareState(state, details, sizes)), openLevel)} label={title} />}
          {stats.ok ? <CopyMarkdownButton apiQuery={statsQuery} /> : null}
          <Link className="button" href={compareViewPath(state, 'review')} data-testid="open-review">
            Review
          </Link>
          <ExportMenu
            links={charts.series.flatMap((s) => [
              { label: `CSV · ${s.label}`, href: endpointPath(ENDPOINTS.runCurveCsv, { id: s.runId }) },
              { label: `JSON · ${s.label} (run detail)`, href: endpointPath(ENDPOINTS.getRun, { id: s.runId }), fileName: `kneeboard-${s.runId}.json` },
            ])}
            json={{ label: 'JSON · this comparison (runs, statistics, view)', fileParts: [service, groups.map((s) => s.label).join(' vs '), 'comparison'], data: () => ({ view: path, settings: state, comparison: stats.ok ? stats.report : null, runs: details }) }}
            embed={{ imagePath: `${endpointPath(ENDPOINTS.compareSvg, {})}${queryString([...comparePairs(state), ...svgViewPairs(state)])}`, viewPath: path, alt: title }}
          />
        </div>
      </div>

      <ComparedRuns series={charts.series} parameter={parameter} />

      <div className={updating ? "verdicts updating" : "verdicts"} data-testid="verdicts" data-min-effect={loaded.minEffect} aria-busy={updating}>
        {stats.ok && base ? (
          stats.report.heads.map((h, i) => {
            const s = groups[i + 1];
            return <VerdictBanner key={h.run.id} headLabel={s?.label ?? h.run.release} baseLabel={base.label} colour={s?.colour ?? '#000'} summary={verdictSummary(h, parameter)} capacity={capacityLine(h, slo)} />;
          })
        ) : (
          <div className="panel notice error" data-testid="compare-error">
            <h2>No statistics for this comparison</h2>
            <p>{stats.ok ? 'No head run.' : stats.error}</p>
            <p className="muted">The curves below are drawn from each run; the verdicts and intervals come from the API’s comparison.</p>
          </div>
        )}
      </div>

      <CompareSloField slo={slo} tag={tag} updating={loaded.slo !== sloText} onChange={(setting) => setState((s) => ({ ...s, slo: setting }))} />

      <ViewToolbar
        settings={state}
        xScale={charts.xScale}
        parameter={parameter}
        levels={charts.allLevels}
        hasFits={hasFits}
        onChange={update}
        minEffect={state.minEffect}
        onMinEffect={(minEffect) => setState((s) => ({ ...s, minEffect }))}
        updating={updating}
      />
      <LevelZoomContext.Provider value={zoomTo}>
        <OverlayPanels charts={charts} parameter={parameter} heading={title} />
      </LevelZoomContext.Provider>
      <CompareLevelPanel series={charts.series} levels={charts.allLevels} parameter={parameter} level={openLevel} onLevel={setOpenLevel} />

      {stats.ok && base ? (
        <>
          <div className="section-title-row">
            <h2 className="section-title">
              Level by level <span className="muted">· change of the head against the base, with its 95% interval</span>
            </h2>
            <button
              type="button"
              className="no-print"
              data-testid="delta-csv"
              onClick={() =>
                downloadBlob(new Blob([deltaCsv(stats.report, parameter, state.levels)], { type: 'text/csv;charset=utf-8' }), exportFileName([service, groups.map((g) => g.label).join(' vs '), 'deltas'], 'csv'))
              }
            >
              Deltas CSV
            </button>
          </div>
          <div className="delta-tables">
            {stats.report.heads.map((h, i) => {
              const s = groups[i + 1];
              const rows = deltaRows(h, state.levels);
              return (
                <DeltaTable key={h.run.id} rows={rows} parameter={parameter} headLabel={s?.label ?? h.run.release} baseLabel={base.label} colour={s?.colour ?? '#000'} hidden={h.levels.length - rows.length} />
              );
            })}
          </div>
          {stats.report.heads.some((h) => costLines(h) !== null) ? (
            <>
              <h2 className="section-title">
                What it costs <span className="muted">· the QPS change against the change in CPU cores used, where both sides read server metrics</span>
              </h2>
              <div className="cost-changes-list">
                {stats.report.heads.map((h, i) => {
                  const lines = costLines(h);
                  const s = groups[i + 1];
                  return lines ? <CostChanges key={h.run.id} lines={lines} headLabel={s?.label ?? h.run.release} baseLabel={base.label} colour={s?.colour ?? '#000'} /> : null;
                })}
              </div>
            </>
          ) : null}
          {stats.report.endpoints && stats.report.endpoints.names.length > 0 ? (
            <>
              <h2 className="section-title">
                Per endpoint <span className="muted">· each request name the runs share, compared on its own curve</span>
              </h2>
              <div className="endpoint-changes-list">
                {stats.report.heads.map((h, i) => {
                  const s = groups[i + 1];
                  return <EndpointChanges key={h.run.id} changes={stats.report.endpoints!} head={i} headLabel={s?.label ?? h.run.release} baseLabel={base.label} colour={s?.colour ?? '#000'} />;
                })}
              </div>
            </>
          ) : null}
          <StatsFootnote settings={stats.report.settings} />
        </>
      ) : null}
    </div>
  );
}
