'use client';

import { levelSelectionContains, type LevelDetail, type Run, type RunDetail } from '@kneeboard/contracts';
import { useCallback, useMemo, useState } from 'react';
import { inProgressLevel, latencyData, normalizeCurve, qpsData, splitData } from '../../lib/curve-series.ts';
import { curveTableRows } from '../../lib/curve-table.ts';
import { formatLevel, formatR2 } from '@kneeboard/contracts/figures';
import { kneeMarker, type KneeMarkerSpec } from '../../lib/knee.ts';
import { withLevelParam } from '../../lib/level-detail.ts';
import { fitLine, levelDomain, sweepXScale, type ScaleKind } from '@kneeboard/chart-prep';
import { KNEE_STYLE, LATENCY_SERIES, QPS_SERIES, SPLIT_SERIES, USL_SERIES, type LatencyKey } from '../../lib/series.ts';
import { rangeSelection, runViewPath, type LevelSelection, type RunViewState } from '../../lib/view-state.ts';
import { LevelZoomContext } from '../zoom/LevelZoom.tsx';
import { useReplaceUrl } from '../common/useReplaceUrl.ts';
import { ChartExportButtons } from '../export/ChartExportButtons.tsx';
import { LevelPanel } from '../level/LevelPanel.tsx';
import { AnalysisSummary } from './AnalysisSummary.tsx';
import { ChartPanel, Segmented } from './ChartPanel.tsx';
import { CurveTable } from './CurveTable.tsx';
import { KneeMarker } from './KneeMarker.tsx';
import { LatencyChart } from './LatencyChart.tsx';
import { LiveIndicator } from './LiveIndicator.tsx';
import { RunTimelinePanel } from './RunTimeline.tsx';
import { QpsChart } from './QpsChart.tsx';
import { OFFERED_COLOUR, OfferedLine } from './OfferedLine.tsx';
import { isOpenLoop, levelAxisLabel, offeredLine } from '../../lib/open-loop.ts';
import { RunHeader, RunMeta } from './RunHeader.tsx';
import { RunNotes } from './RunNotes.tsx';
import { RunToolbar } from './RunToolbar.tsx';
import { SplitChart } from './SplitChart.tsx';
import { UslCurve } from './UslCurve.tsx';
import { useLiveRun } from './useLiveRun.ts';

const SCALE_OPTIONS = [
  { value: 'linear', label: 'linear' },
  { value: 'log', label: 'log' },
] as const;

/** A legend entry for the knee line; its title is the knee's reason. */
function KneeLegend({ marker }: { marker: KneeMarkerSpec | null }) {
  if (marker === null) return null;
  return (
    <span className="legend-item legend-knee" title={marker.title} data-testid="knee-legend">
      <span className="knee-swatch" style={{ borderColor: KNEE_STYLE.color }} />
      <span className="legend-text">{marker.label}</span>
    </span>
  );
}

/** The run page body: header and verdict, the three charts and the table, kept current while the run runs. */
export function RunView({
  initial,
  view,
  level: initialLevel = null,
  levelDetail,
  readOnly = false,
}: {
  initial: RunDetail;
  view: RunViewState;
  /** The level whose panel is open (`?level=N`), and its detail when the server fetched it. */
  level?: number | null;
  levelDetail?: LevelDetail | null;
  /** A share link's reader: no labels or notes to edit, no new links to make. */
  readOnly?: boolean;
}) {
  const { detail, mode, updatedAt, retryAt } = useLiveRun(initial);
  const { analysis } = detail;
  // Labels and note just saved here win over the (possibly older) detail until the next snapshot carries them.
  const [edits, setEdits] = useState<Pick<Run, 'labels' | 'note'> | null>(null);
  const run = edits ? { ...detail.run, ...edits } : detail.run;
  const fullCurve = useMemo(() => normalizeCurve(detail.curve), [detail.curve]);

  // Every toggle starts from the URL and is written back to it. null = follow the default: the fit's
  // changes as a live run's fit firms up; the level axis is decided once from the sweep's first levels.
  const [xChoice, setXChoice] = useState<ScaleKind | null>(view.x);
  const [yScale, setYScale] = useState<ScaleKind>(view.y);
  const [visible, setVisible] = useState<LatencyKey[]>(view.metrics);
  const [fitChoice, setFitChoice] = useState<boolean | null>(view.fit);
  const [levelSel, setLevelSel] = useState<LevelSelection | null>(view.levels);
  const settings = { x: xChoice, y: yScale, metrics: visible, fit: fitChoice, levels: levelSel };
  const path = runViewPath({ id: run.id, ...settings });
  const [openLevel, setOpenLevel] = useState<number | null>(initialLevel);
  useReplaceUrl(withLevelParam(path, openLevel));
  const selectLevel = useCallback((level: number) => {
    setOpenLevel((cur) => (cur === level ? null : level));
    // The panel sits under the table: bring it into view once it has rendered.
    requestAnimationFrame(() => document.getElementById('level-panel')?.scrollIntoView({ block: 'start' }));
  }, []);
  // From the timeline: a step opens its level (never closes it, unlike the table's toggle).
  const showLevel = useCallback((level: number) => {
    setOpenLevel(level);
    requestAnimationFrame(() => document.getElementById('level-panel')?.scrollIntoView({ block: 'start' }));
  }, []);
  const curve = useMemo(() => fullCurve.filter((p) => levelSelectionContains(levelSel, p.level)), [fullCurve, levelSel]);
  const sweptLevels = useMemo(() => fullCurve.map((p) => p.level), [fullCurve]);
  const zoomTo = useCallback((lo: number, hi: number) => setLevelSel(rangeSelection(sweptLevels, lo, hi)), [sweptLevels]);
  const levels = curve.map((p) => p.level);
  const xScale = xChoice ?? sweepXScale(fullCurve.map((p) => p.level));
  const xDomain = levelDomain(levels, xScale);

  // The fitted line keeps to the levels shown (a zoomed range too), and so does the y axis.
  const [domainLo, domainHi] = xDomain;
  const shownFit = useMemo(() => fitLine(analysis.usl_curve, xScale, levels, [domainLo, domainHi]), [analysis.usl_curve, xScale, levels, domainLo, domainHi]);
  const shownAnalysis = useMemo(() => ({ ...analysis, usl_curve: shownFit }), [analysis, shownFit]);
  const fit = analysis.usl;
  const hasFitLine = fit !== null && shownFit.length >= 2;
  // Drawn by default when the analysis trusts the fit; the reader can switch it on regardless.
  const showFit = hasFitLine && (fitChoice ?? analysis.usl_trusted);
  const knee = kneeMarker(analysis, xDomain, xScale);
  const fitPoints = showFit ? shownFit : [];

  const openLoop = isOpenLoop(run.load_model);
  const xLabel = levelAxisLabel(run.parameter, run.load_model);
  const qps = useMemo(() => qpsData(curve, shownAnalysis, { showFit, offered: openLoop }), [curve, shownAnalysis, showFit, openLoop]);
  const offered = useMemo(() => (openLoop && curve.length > 0 ? offeredLine([domainLo, domainHi], xScale) : []), [openLoop, curve.length, domainLo, domainHi, xScale]);
  const tableRows = useMemo(() => curveTableRows(curve, analysis, run.parameter), [curve, analysis, run.parameter]);
  const latency = useMemo(() => latencyData(curve, visible, yScale), [curve, visible, yScale]);
  const split = useMemo(() => splitData(curve), [curve]);
  const measuring = inProgressLevel(curve);

  const waiting =
    fullCurve.length === 0
      ? run.status === 'running'
        ? 'Waiting for the first level to report…'
        : 'This run recorded no levels.'
      : curve.length === 0
        ? 'No level is inside the chosen range.'
        : null;
  const xControl = <Segmented label={`${run.parameter} axis`} value={xScale} options={SCALE_OPTIONS} onChange={setXChoice} testId="x-scale" />;
  const exportSpec = (chart: string, subtitle: string, legend: Array<{ label: string; colour: string; dashed?: boolean }>) => ({
    title: `${run.service} ${run.release}${run.name ? ` · ${run.name}` : ''} — ${chart}`,
    subtitle,
    legend,
    fileParts: [run.service, run.release, chart],
  });

  const toggle = (key: LatencyKey) =>
    setVisible((cur) => {
      const next = cur.includes(key) ? cur.filter((k) => k !== key) : [...cur, key];
      return LATENCY_SERIES.map((s) => s.key).filter((k) => next.includes(k));
    });

  return (
    <div className="run-view" data-run-status={run.status}>
      <RunHeader
        detail={{ ...detail, run, curve: fullCurve }}
        live={<LiveIndicator mode={mode} updatedAt={updatedAt} retryAt={retryAt} />}
        summary={<AnalysisSummary analysis={analysis} parameter={run.parameter} loadModel={run.load_model} />}
        readOnly={readOnly}
      />
      <RunToolbar run={run} path={path} settings={settings} levels={fullCurve.map((p) => p.level)} selection={levelSel} onLevels={setLevelSel} readOnly={readOnly} />

      <LevelZoomContext.Provider value={zoomTo}>
      <div className="charts">
        <ChartPanel
          title="Throughput"
          subtitle={<>successful requests per second against {run.parameter}</>}
          controls={
            <>
              {xControl}
              <ChartExportButtons
                spec={exportSpec('Throughput', `successful requests per second against ${run.parameter}`, [
                  { label: 'throughput', colour: QPS_SERIES.color },
                  ...(showFit ? [{ label: USL_SERIES.label, colour: USL_SERIES.color, dashed: true }] : []),
                  ...(openLoop ? [{ label: 'offered = achieved', colour: OFFERED_COLOUR, dashed: true }] : []),
                ])}
              />
            </>
          }
          legend={
            <>
              <span className="legend-item" style={{ color: QPS_SERIES.color }}>
                <span className="legend-dot filled" />
                <span className="legend-text">throughput</span>
              </span>
              {hasFitLine && fit ? (
                <label
                  className="legend-toggle"
                  data-testid="toggle-usl"
                  title={`The Universal Scalability Law fitted to the completed levels (R² = ${formatR2(fit.r2, 3)}); shown by default when the analysis trusts the fit`}
                >
                  <input type="checkbox" checked={showFit} onChange={() => setFitChoice(!showFit)} />
                  <span className="swatch swatch-dashed" style={{ color: USL_SERIES.color }} />
                  {USL_SERIES.label}
                  <span className="muted">R² {formatR2(fit.r2)}</span>
                </label>
              ) : null}
              {openLoop ? (
                <span className="legend-item" style={{ color: OFFERED_COLOUR }} title="An open loop offers a fixed rate: below saturation achieved throughput sits on this line, past it it falls below">
                  <span className="swatch swatch-dashed" style={{ color: OFFERED_COLOUR }} />
                  <span className="legend-text">offered = achieved</span>
                </span>
              ) : null}
              <KneeLegend marker={knee} />
              {measuring !== null ? (
                <span className="legend-item" style={{ color: QPS_SERIES.color }}>
                  <span className="legend-dot" />
                  <span className="legend-text">
                    {run.parameter} {formatLevel(measuring)}: still being measured
                  </span>
                </span>
              ) : null}
            </>
          }
          empty={waiting}
          testId="qps-chart"
        >
          <QpsChart data={qps} parameter={run.parameter} xLabel={xLabel} xScale={xScale} showFit={showFit}>
            {openLoop ? <OfferedLine points={offered} /> : null}
            <KneeMarker marker={knee} />
            {showFit ? <UslCurve points={fitPoints} trusted={analysis.usl_trusted} /> : null}
          </QpsChart>
        </ChartPanel>

        <ChartPanel
          title="Latency"
          subtitle={<>percentiles of successful requests, milliseconds</>}
          controls={
            <>
              <Segmented label="latency axis" value={yScale} options={SCALE_OPTIONS} onChange={setYScale} testId="y-scale" />
              <ChartExportButtons
                spec={exportSpec(
                  'Latency',
                  'percentiles of successful requests, milliseconds',
                  LATENCY_SERIES.filter((s) => visible.includes(s.key)).map((s) => ({ label: s.label, colour: s.color })),
                )}
              />
            </>
          }
          legend={
            <>
              {LATENCY_SERIES.map((s) => (
                <label key={s.key} className="legend-toggle" data-testid={`toggle-${s.key}`}>
                  <input type="checkbox" checked={visible.includes(s.key)} onChange={() => toggle(s.key)} />
                  <span className="swatch" style={{ background: s.color }} />
                  {s.label}
                </label>
              ))}
              <KneeLegend marker={knee} />
            </>
          }
          footnote={
            yScale === 'log' && latency.droppedOnLog > 0
              ? `${latency.droppedOnLog} value(s) of 0 ms cannot be drawn on a log axis and are left out.`
              : undefined
          }
          empty={waiting ?? (visible.length === 0 ? 'Pick a percentile to draw.' : yScale === 'log' && latency.yAxis === null ? 'No latency samples yet.' : null)}
          testId="latency-chart"
        >
          <LatencyChart data={latency} visible={visible} parameter={run.parameter} xLabel={xLabel} xScale={xScale} yScale={yScale}>
            <KneeMarker marker={knee} />
          </LatencyChart>
        </ChartPanel>

        <ChartPanel
          title="Where the median request's time goes"
          subtitle={<>p50 of each component per {run.parameter}, milliseconds</>}
          controls={
            <ChartExportButtons
              spec={exportSpec(
                'p50 split',
                `p50 of each component per ${run.parameter}, milliseconds`,
                SPLIT_SERIES.map((s) => ({ label: s.label, colour: s.color })),
              )}
            />
          }
          legend={SPLIT_SERIES.map((s) => (
            <span key={s.key} className="legend-item" title={s.hint}>
              <span className="swatch" style={{ background: s.color }} />
              {s.label}
            </span>
          ))}
          footnote="Each component is its own median, so the stack is close to, not exactly, the latency p50. other = latency − compute − queue (interface and network)."
          empty={
            waiting ??
            (split.hasServerTiming ? null : run.tags.import_tool !== undefined ? (
              // An import holds what its tool kept: the target may well send the header.
              <>
                No compute/queue split: the imported {run.tags.import_tool} file holds no <code>Server-Timing</code> headers (vegeta keeps
                them, JMeter in an XML JTL saved with <code>responseHeaders=true</code>; k6, oha and Gatling never do).
              </>
            ) : (
              <>
                No compute/queue split: the target sends no <code>Server-Timing</code> header (e.g.{' '}
                <code>Server-Timing: queue;dur=12.5, compute;dur=48.1</code>).
              </>
            ))
          }
          testId="split-chart"
          className="chart-wide"
        >
          <SplitChart data={split} parameter={run.parameter} />
        </ChartPanel>
      </div>
      </LevelZoomContext.Provider>

      <div className="run-timeline">
        <RunTimelinePanel runId={run.id} parameter={run.parameter} running={run.status === 'running'} onOpenLevel={showLevel} />
      </div>

      {/* The charts come first (above the fold on a 1280×800 screen, live or not); then who/what/when, labels and note. */}
      <RunMeta detail={{ ...detail, run, curve: fullCurve }} readOnly={readOnly} />
      <RunNotes runId={run.id} labels={run.labels ?? []} note={run.note ?? ''} onSaved={setEdits} readOnly={readOnly} />

      <h2 className="section-title">
        Curve <span className="muted">· one row per {run.parameter} level</span>
      </h2>
      <CurveTable
        rows={tableRows}
        parameter={run.parameter}
        efficiencyBasis={analysis.efficiency.length > 0 ? analysis.efficiency_basis : null}
        closedLoop={run.load_model === 'closed'}
        openLoop={openLoop}
        selected={openLevel}
        onSelect={selectLevel}
      />
      {openLevel !== null ? (
        <div id="level-panel">
          <LevelPanel
            key={openLevel}
            runId={run.id}
            level={openLevel}
            parameter={run.parameter}
            initial={openLevel === initialLevel ? levelDetail : undefined}
            version={updatedAt ?? 0}
            onClose={() => setOpenLevel(null)}
          />
        </div>
      ) : null}
    </div>
  );
}
