'use client';

import type { ScaleKind } from '@kneeboard/chart-prep';
import { LATENCY_SERIES, type LatencyKey } from '../../lib/series.ts';
import { minEffectOptions, type ChartSettings } from '../../lib/view-state.ts';
import { LevelRangePicker } from '../common/LevelRangePicker.tsx';
import { ZoomReset } from '../zoom/LevelZoom.tsx';
import { Segmented } from '../run/ChartPanel.tsx';

const SCALES = [
  { value: 'linear', label: 'linear' },
  { value: 'log', label: 'log' },
] as const;

/** The comparison's view settings: percentiles, axes, the fitted curves and the level range. All of it goes into the URL. */
export function ViewToolbar({
  settings,
  xScale,
  parameter,
  levels,
  hasFits,
  onChange,
  minEffect,
  onMinEffect,
  updating = false,
}: {
  settings: ChartSettings;
  /** The x scale in effect (the automatic choice when the URL has none). */
  xScale: ScaleKind;
  parameter: string;
  levels: ReadonlyArray<number>;
  hasFits: boolean;
  onChange: (next: Partial<ChartSettings>) => void;
  /** The smallest change the verdicts call (0–1), and its setter. */
  minEffect: number;
  onMinEffect: (value: number) => void;
  /** The statistics for a new min_effect are on their way. */
  updating?: boolean;
}) {
  const toggle = (key: LatencyKey) => {
    const on = settings.metrics.includes(key) ? settings.metrics.filter((k) => k !== key) : [...settings.metrics, key];
    onChange({ metrics: LATENCY_SERIES.map((s) => s.key).filter((k) => on.includes(k)) });
  };
  return (
    <div className="panel view-toolbar no-print" data-testid="view-toolbar">
      <span className="control" role="group" aria-label="latency percentiles">
        <span className="control-label">percentiles</span>
        {LATENCY_SERIES.map((s) => (
          <label key={s.key} className="legend-toggle" data-testid={`toggle-${s.key}`}>
            <input type="checkbox" checked={settings.metrics.includes(s.key)} onChange={() => toggle(s.key)} />
            {s.label}
          </label>
        ))}
      </span>
      <Segmented label={`${parameter} axis`} value={xScale} options={SCALES} onChange={(x) => onChange({ x })} testId="x-scale" />
      <Segmented label="latency axis" value={settings.y} options={SCALES} onChange={(y) => onChange({ y })} testId="y-scale" />
      <label className="legend-toggle" data-testid="toggle-usl" title={hasFits ? 'Each run’s fitted Universal Scalability Law curve, thin, in its colour' : 'No run has a fitted curve'}>
        <input type="checkbox" checked={settings.fit === true} disabled={!hasFits} onChange={() => onChange({ fit: settings.fit === true ? null : true })} />
        USL fits
      </label>
      <label className="control min-effect" data-testid="min-effect" title="A change smaller than this is called no significant change, whatever its interval">
        <span className="control-label">call changes from</span>
        <select value={String(minEffect)} onChange={(e) => onMinEffect(Number(e.target.value))} aria-label="call changes from (smallest change the verdicts call)">
          {minEffectOptions(minEffect).map((o) => (
            <option key={o.value} value={String(o.value)}>
              {o.label}
            </option>
          ))}
        </select>
        {updating ? (
          <span className="muted small" data-testid="min-effect-updating">
            {' '}
            updating…
          </span>
        ) : null}
      </label>
      <LevelRangePicker parameter={parameter} levels={levels} selection={settings.levels} onChange={(sel) => onChange({ levels: sel })} />
      <ZoomReset zoomed={settings.levels !== null} onReset={() => onChange({ levels: null })} />
    </div>
  );
}
