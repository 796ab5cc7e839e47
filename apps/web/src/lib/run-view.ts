/**
 * Prepare the run page: everything its charts, legends and table draw, from the run's detail and
 * the view's settings, in one pure function. The page component keeps only what React must keep
 * (the live detail, the settings the reader changes, the open level) and renders what this returns.
 */
import { fitLine, levelDomain, sweepXScale, type ScaleKind } from '@kneeboard/chart-prep';
import { levelSelectionContains, type Capacity, type CurvePoint, type Run, type RunDetail, type UslCurvePoint, type UslFit } from '@kneeboard/contracts';
import { activeSlo, capacityView, sloThresholds, type ActiveSlo, type CapacityView, type SloThreshold } from './capacity-view.ts';
import { inProgressLevel, latencyData, normalizeCurve, qpsData, splitData, type LatencyData, type QpsData, type SplitData } from './curve-series.ts';
import { curveTableRows, type CurveTableRow } from './curve-table.ts';
import { kneeMarker, type KneeMarkerSpec } from './knee.ts';
import { isOpenLoop, levelAxisLabel, offeredLine } from './open-loop.ts';
import { runViewPath, type ChartSettings, type SloSetting } from './view-state.ts';

/** The run page's settings: the charts', and the SLOs (`slo=`; absent or null: the run's `slo` tag). */
export interface RunSettings extends ChartSettings {
  slo?: SloSetting;
}

export interface RunViewModel {
  /** The run as shown (labels and note just saved here included). */
  run: Run;
  /** Every level measured, sorted, one point each. */
  fullCurve: CurvePoint[];
  /** The levels inside the chosen range. */
  curve: CurvePoint[];
  /** Every swept level (the range picker offers these). */
  sweptLevels: number[];
  /** The view's URL (settings only; the open level is added by the page). */
  path: string;
  xScale: ScaleKind;
  xDomain: [number, number];
  /** The level axis' label (an open loop sweeps an offered rate). */
  xLabel: string;
  openLoop: boolean;
  /** The analysis' USL fit, whether a fitted line can be drawn over the shown levels, and whether it is. */
  fit: UslFit | null;
  hasFitLine: boolean;
  showFit: boolean;
  /** The fitted line's points, clipped to the shown levels; empty when it is not drawn. */
  fitPoints: UslCurvePoint[];
  knee: KneeMarkerSpec | null;
  qps: QpsData;
  /** The open loop's offered = achieved line over the level axis; empty on a closed loop. */
  offered: Array<{ level: number; qps: number }>;
  latency: LatencyData;
  split: SplitData;
  tableRows: CurveTableRow[];
  /** The level still being measured, if any. */
  measuring: number | null;
  /** Why every chart is empty (no level yet, none recorded, none in the range); null when there is something to draw. */
  waiting: string | null;
  /** The SLOs the page judges by (the URL's, else the run's tag); null: none. */
  slo: ActiveSlo | null;
  /** A line on the latency chart per latency clause. */
  thresholds: SloThreshold[];
  /** The capacity under `slo`, once the API has answered for those SLOs. */
  capacity: CapacityView | null;
}

/**
 * The run page's view of `detail` under `settings`. The level axis follows the x choice or, by
 * default, the sweep's first two levels (`sweepXScale`, decided on every swept level so zooming
 * never flips it); the fitted line is drawn by default when the analysis trusts it and can be
 * switched on regardless; the fit and the y axes keep to the levels shown.
 */
export function prepareRunView(detail: RunDetail, settings: RunSettings, edits: Pick<Run, 'labels' | 'note'> | null = null, capacity: Capacity | null = null): RunViewModel {
  const run = edits ? { ...detail.run, ...edits } : detail.run;
  const { analysis } = detail;
  const fullCurve = normalizeCurve(detail.curve);
  const curve = fullCurve.filter((p) => levelSelectionContains(settings.levels, p.level));
  const sweptLevels = fullCurve.map((p) => p.level);
  const levels = curve.map((p) => p.level);
  const xScale = settings.x ?? sweepXScale(sweptLevels);
  const xDomain = levelDomain(levels, xScale);

  const shownFit = fitLine(analysis.usl_curve, xScale, levels, xDomain);
  const fit = analysis.usl;
  const hasFitLine = fit !== null && shownFit.length >= 2;
  const showFit = hasFitLine && (settings.fit ?? analysis.usl_trusted);
  const openLoop = isOpenLoop(run.load_model);
  const slo = activeSlo(settings.slo ?? null, run);
  const thresholds = sloThresholds(slo, settings.y);

  return {
    run,
    fullCurve,
    curve,
    sweptLevels,
    path: runViewPath({ id: run.id, ...settings, ...(detail.name === undefined ? {} : { name: detail.name }) }),
    xScale,
    xDomain,
    xLabel: levelAxisLabel(run.parameter, run.load_model),
    openLoop,
    fit,
    hasFitLine,
    showFit,
    fitPoints: showFit ? shownFit : [],
    knee: kneeMarker(analysis, xDomain, xScale),
    qps: qpsData(curve, { ...analysis, usl_curve: shownFit }, { showFit, offered: openLoop }),
    offered: openLoop && curve.length > 0 ? offeredLine(xDomain, xScale) : [],
    latency: latencyData(curve, settings.metrics, settings.y, thresholds.map((t) => t.ms)),
    split: splitData(curve),
    tableRows: curveTableRows(curve, analysis, run.parameter),
    measuring: inProgressLevel(curve),
    waiting:
      fullCurve.length === 0
        ? run.status === 'running'
          ? 'Waiting for the first level to report…'
          : 'This run recorded no levels.'
        : curve.length === 0
          ? 'No level is inside the chosen range.'
          : null,
    slo,
    thresholds,
    capacity: capacityView(capacity, slo, run.parameter, xDomain, xScale),
  };
}

/** What a chart's PNG/SVG export is titled and named by: the run, then the chart. */
export function runChartExport(run: Pick<Run, 'service' | 'release' | 'name'>, chart: string, subtitle: string, legend: Array<{ label: string; colour: string; dashed?: boolean }>) {
  return {
    title: `${run.service} ${run.release}${run.name ? ` · ${run.name}` : ''} — ${chart}`,
    subtitle,
    legend,
    fileParts: [run.service, run.release, chart],
  };
}
