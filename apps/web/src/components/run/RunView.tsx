'use client';

import type { LevelDetail, Run, RunDetail, RunNameCurves } from '@kneeboard/contracts';
import { useCallback, useMemo, useState } from 'react';
import { connectionsByLevel } from '../../lib/level-connections.ts';
import { withLevelParam } from '../../lib/level-detail.ts';
import { activeSlo, runSloTag } from '../../lib/capacity-view.ts';
import { prepareRunView, type RunSettings } from '../../lib/run-view.ts';
import { prepareSearchView } from '../../lib/search-view.ts';
import { LATENCY_SERIES, type LatencyKey } from '../../lib/series.ts';
import { rangeSelection, runViewPath, type RunViewState } from '../../lib/view-state.ts';
import { LevelZoomContext } from '../zoom/LevelZoom.tsx';
import { useReplaceUrl } from '../common/useReplaceUrl.ts';
import { LevelPanel } from '../level/LevelPanel.tsx';
import { AnalysisSummary } from './AnalysisSummary.tsx';
import { CapacityPanel } from './CapacityPanel.tsx';
import { SCALE_OPTIONS, Segmented } from './ChartPanel.tsx';
import { CostPanel } from './CostPanel.tsx';
import { CurveTable } from './CurveTable.tsx';
import { endpointsMarkdown, endpointsSummary } from '../../lib/endpoints-view.ts';
import { Endpoints } from './Endpoints.tsx';
import { LatencyPanel } from './LatencyPanel.tsx';
import { LiveIndicator } from './LiveIndicator.tsx';
import { RunTimelinePanel } from './RunTimeline.tsx';
import { RunHeader, RunMeta } from './RunHeader.tsx';
import { RunNotes } from './RunNotes.tsx';
import { RunToolbar } from './RunToolbar.tsx';
import { SearchPanel } from './SearchPanel.tsx';
import { SplitPanel } from './SplitPanel.tsx';
import { ThroughputPanel } from './ThroughputPanel.tsx';
import { useLiveRun } from './useLiveRun.ts';
import { useRunCapacity } from './useRunCapacity.ts';
import { useRunCost } from './useRunCost.ts';

/** The panel sits under the table: bring it into view once it has rendered. */
function scrollToLevelPanel() {
  requestAnimationFrame(() => document.getElementById('level-panel')?.scrollIntoView({ block: 'start' }));
}

/**
 * The run page body: header and verdict, the three charts and the table, kept current while the
 * run runs. What is drawn is `prepareRunView`'s; this component keeps the live detail, the
 * settings the reader changes (all written back to the URL) and the open level.
 */
export function RunView({
  initial,
  view,
  level: initialLevel = null,
  levelDetail,
  readOnly = false,
  unknownName = null,
  nameCurves = null,
}: {
  initial: RunDetail;
  view: RunViewState;
  /** The level whose panel is open (`?level=N`), and its detail when the server fetched it. */
  level?: number | null;
  levelDetail?: LevelDetail | null;
  /** A share link's reader: no labels or notes to edit, no new links to make. */
  readOnly?: boolean;
  /** The URL's `name=` when the run carries no such request name (the whole run is shown instead). */
  unknownName?: string | null;
  /** Every request name's curve, for the small multiples (null: none drawn). */
  nameCurves?: RunNameCurves | null;
}) {
  // Every toggle starts from the URL and is written back to it. null = follow the default: the fit's
  // changes as a live run's fit firms up; the level axis is decided once from the sweep's first levels;
  // the SLOs are the run's own tag.
  const [settings, setSettings] = useState<RunSettings>(() => ({ x: view.x, y: view.y, metrics: view.metrics, fit: view.fit, levels: view.levels, slo: view.slo ?? null }));
  const sloText = activeSlo(settings.slo ?? null, initial.run)?.text ?? null;
  const live = useLiveRun(initial, sloText);
  const { detail, mode, updatedAt, retryAt } = live;
  const { analysis } = detail;
  const judged = useRunCapacity(initial.run.id, sloText, live.capacity, updatedAt);
  const cost = useRunCost(initial.run.id, detail.run.status === 'running');
  // Labels and note just saved here win over the (possibly older) detail until the next snapshot carries them.
  const [edits, setEdits] = useState<Pick<Run, 'labels' | 'note'> | null>(null);
  const [openLevel, setOpenLevel] = useState<number | null>(initialLevel);
  const prepared = useMemo(() => prepareRunView(detail, settings, edits, judged.capacity), [detail, settings, edits, judged.capacity]);
  // A finished run with names exports its Endpoints too (the same rows the summary shows; a run followed live to its end, its final ones); a run without names exports as before.
  const endpointsExport = useMemo(
    () => ((detail.names?.length ?? 0) > 0 && detail.run.status !== 'running' ? { markdown: endpointsMarkdown(detail.endpoints ? endpointsSummary(detail.endpoints, detail.names ?? []) : null, detail.run.parameter) } : null),
    [detail.names, detail.endpoints, detail.run.status, detail.run.parameter],
  );
  const connections = useMemo(() => connectionsByLevel(detail.steps), [detail.steps]);
  const { run, fullCurve, sweptLevels, path } = prepared;
  useReplaceUrl(withLevelParam(path, openLevel));

  const change = (patch: Partial<RunSettings>) => setSettings((cur) => ({ ...cur, ...patch }));
  const selectLevel = useCallback((level: number) => {
    setOpenLevel((cur) => (cur === level ? null : level));
    scrollToLevelPanel();
  }, []);
  // From the timeline: a step opens its level (never closes it, unlike the table's toggle).
  const showLevel = useCallback((level: number) => {
    setOpenLevel(level);
    scrollToLevelPanel();
  }, []);
  const zoomTo = useCallback((lo: number, hi: number) => setSettings((cur) => ({ ...cur, levels: rangeSelection(sweptLevels, lo, hi) })), [sweptLevels]);
  const toggle = (key: LatencyKey) => {
    const next = settings.metrics.includes(key) ? settings.metrics.filter((k) => k !== key) : [...settings.metrics, key];
    change({ metrics: LATENCY_SERIES.map((s) => s.key).filter((k) => next.includes(k)) });
  };
  const xControl = <Segmented label={`${run.parameter} axis`} value={prepared.xScale} options={SCALE_OPTIONS} onChange={(x) => change({ x })} testId="x-scale" />;

  return (
    <div className="run-view" data-run-status={run.status}>
      <RunHeader
        detail={{ ...detail, run, curve: fullCurve }}
        live={<LiveIndicator mode={mode} updatedAt={updatedAt} retryAt={retryAt} />}
        summary={<AnalysisSummary analysis={analysis} parameter={run.parameter} loadModel={run.load_model} />}
        readOnly={readOnly}
      />
      <RunToolbar run={run} path={path} settings={settings} levels={sweptLevels} selection={settings.levels} onLevels={(levels) => change({ levels })} readOnly={readOnly} capacity={{ slo: prepared.slo?.text ?? null, line: prepared.capacity?.headline ?? null }} endpoints={endpointsExport} />
      <Endpoints detail={detail} current={initial.name ?? null} unknownName={unknownName} nameCurves={nameCurves} hrefFor={(name) => runViewPath({ id: run.id, ...settings, ...(name === null ? {} : { name }) })} />
      <CapacityPanel slo={prepared.slo} tag={runSloTag(run)} view={prepared.capacity} error={judged.error} onChange={(slo) => change({ slo })} />
      {detail.search ? <SearchPanel view={prepareSearchView(detail.search, run.parameter, run.status)} /> : null}

      <LevelZoomContext.Provider value={zoomTo}>
      <div className="charts">
        <ThroughputPanel view={prepared} xControl={xControl} trusted={analysis.usl_trusted} onToggleFit={() => change({ fit: !prepared.showFit })} />
        <LatencyPanel view={prepared} visible={settings.metrics} yScale={settings.y} onYScale={(y) => change({ y })} onToggle={toggle} />
        <SplitPanel view={prepared} />
      </div>
      </LevelZoomContext.Provider>

      <CostPanel cost={cost.value} error={cost.error} parameter={run.parameter} />

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
        rows={prepared.tableRows}
        parameter={run.parameter}
        efficiencyBasis={analysis.efficiency.length > 0 ? analysis.efficiency_basis : null}
        closedLoop={run.load_model === 'closed'}
        openLoop={prepared.openLoop}
        selected={openLevel}
        onSelect={selectLevel}
        connections={connections}
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
            cost={cost.value}
            connections={connections.get(openLevel)}
            onClose={() => setOpenLevel(null)}
          />
        </div>
      ) : null}
    </div>
  );
}
