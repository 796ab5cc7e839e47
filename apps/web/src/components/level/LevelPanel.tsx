'use client';

import type { LevelDetail, RunCost, StepConnections } from '@kneeboard/contracts';
import { useEffect, useMemo, useState } from 'react';
import { fetchLevelDetail } from '../../lib/client-api.ts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { histogramRows, spectrumRows, timelineData } from '../../lib/level-detail.ts';
import { LATENCY_SERIES } from '../../lib/series.ts';
import { ChartPanel } from '../run/ChartPanel.tsx';
import { HistogramChart } from './HistogramChart.tsx';
import { LevelConnections } from './LevelConnections.tsx';
import { LevelCost } from './LevelCost.tsx';
import { LevelStats } from './LevelStats.tsx';
import { SpectrumChart } from './SpectrumChart.tsx';
import { LatencyOverTime, ThroughputOverTime } from './TimelineCharts.tsx';

type Loaded = { level: number; detail: LevelDetail | null; error: string | null };

/**
 * "Inside concurrency N": the level's spectrum, histogram, its step over time and its status codes,
 * and what it cost the server when the run read that.
 * Starts from the server's answer when the page was opened with `?level=N`; otherwise fetches it
 * through the dashboard's `/api` proxy. `version` changes with each live snapshot, so a level still
 * being measured is fetched again.
 */
export function LevelPanel({
  runId,
  level,
  parameter,
  initial,
  version,
  cost = null,
  connections = null,
  onClose,
}: {
  runId: string;
  level: number;
  parameter: string;
  initial: LevelDetail | null | undefined;
  version: number;
  /** The run's cost (the run view reads it once): this level's figures when the run has server metrics. */
  cost?: RunCost | null;
  /** The step's connections as its agent reported them (the run detail's step at this level). */
  connections?: StepConnections | null | undefined;
  onClose: () => void;
}) {
  const [loaded, setLoaded] = useState<Loaded | null>(initial !== undefined && (initial === null || initial.level === level) ? { level, detail: initial, error: null } : null);
  const current = loaded?.level === level ? loaded : null;
  const stale = current === null || (current.detail?.in_progress ?? false);

  useEffect(() => {
    if (!stale) return;
    let cancelled = false;
    fetchLevelDetail(runId, level).then(
      (detail) => !cancelled && setLoaded({ level, detail, error: null }),
      (err: unknown) => !cancelled && setLoaded({ level, detail: null, error: (err as Error).message }),
    );
    return () => {
      cancelled = true;
    };
    // `version` re-runs this for a level still being measured.
  }, [runId, level, stale, version]);

  const d = current?.detail ?? null;
  const spectrum = useMemo(() => (d ? spectrumRows(d) : []), [d]);
  const hist = useMemo(() => (d ? histogramRows(d) : []), [d]);
  const time = useMemo(() => (d ? timelineData(d) : null), [d]);
  const noLatency = d !== null && d.ok === 0 ? 'No successful request in the measured window.' : null;
  const title = `Inside ${parameter} ${formatLevel(level)}`;

  return (
    <section className="level-panel" data-testid="level-panel" data-level={level} aria-labelledby="level-panel-title">
      <header className="level-head">
        <h2 className="section-title" id="level-panel-title">
          {title}
          {d?.in_progress ? <span className="muted"> · still being measured</span> : null}
        </h2>
        <button type="button" className="button" onClick={onClose} data-testid="level-close">
          Close
        </button>
      </header>
      {current === null ? <p className="muted">Loading {title.toLowerCase()}…</p> : null}
      {current?.error ? (
        <p className="error" role="alert">
          {current.error}
        </p>
      ) : null}
      {current !== null && !current.error && d === null ? <p className="muted">This run has no {parameter} {formatLevel(level)} level.</p> : null}
      {d ? (
        <>
          <LevelStats detail={d} />
          <LevelCost cost={cost} level={level} />
          <LevelConnections connections={connections} detail={d} />
          <div className="charts">
            <ChartPanel title="Percentile spectrum" subtitle="latency at each percentile of the measured window, to p99.99" empty={noLatency} testId="level-spectrum">
              <SpectrumChart series={[{ key: 'ms', label: 'latency', colour: LATENCY_SERIES[2].color, rows: spectrum }]} />
            </ChartPanel>
            <ChartPanel title="Histogram" subtitle="successful requests by latency, log-spaced buckets from min to max" empty={noLatency} testId="level-histogram">
              <HistogramChart rows={hist} />
            </ChartPanel>
            <ChartPanel
              title="Throughput over time"
              subtitle="successful requests per second; the shaded warm-up is not in the curve"
              empty={time && time.rows.length > 0 ? null : 'No request recorded in this step.'}
              testId="level-timeline-qps"
            >
              {time ? <ThroughputOverTime data={time} /> : null}
            </ChartPanel>
            <ChartPanel
              title="Latency over time"
              subtitle={<>p50 and p99 per {d.bucket_ms} ms slice, milliseconds</>}
              legend={[LATENCY_SERIES[0], LATENCY_SERIES[2]].map((s) => (
                <span key={s.key} className="legend-item">
                  <span className="swatch" style={{ background: s.color }} />
                  {s.label}
                </span>
              ))}
              empty={time && time.rows.length > 0 ? null : 'No request recorded in this step.'}
              testId="level-timeline-latency"
            >
              {time ? <LatencyOverTime data={time} /> : null}
            </ChartPanel>
          </div>
        </>
      ) : null}
    </section>
  );
}
