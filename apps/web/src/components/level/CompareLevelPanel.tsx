'use client';

import type { LevelDetail } from '@kneeboard/contracts';
import { useEffect, useState } from 'react';
import { fetchLevelDetail } from '../../lib/client-api.ts';
import type { RunSeries } from '../../lib/compare-series.ts';
import { formatLevel, formatMs } from '@kneeboard/contracts/figures';
import { formatCount } from '../../lib/format.ts';
import { spectrumRows } from '../../lib/level-detail.ts';
import { RunSwatch } from '../compare/RunSwatch.tsx';
import { ChartPanel } from '../run/ChartPanel.tsx';
import { SpectrumChart } from './SpectrumChart.tsx';

type Loaded = { level: number; details: Array<LevelDetail | null>; error: string | null };

const at = (d: LevelDetail, p: number) => d.spectrum.find((s) => s.p === p)?.ms ?? null;

/**
 * The compared runs inside one level: their percentile spectra overlaid (base dashed, as in the
 * curves) and their window statistics side by side. A run that did not sweep the level says so.
 */
export function CompareLevelPanel({
  series,
  levels,
  parameter,
  level,
  onLevel,
}: {
  series: RunSeries[];
  levels: number[];
  parameter: string;
  /** The open level: the comparison keeps it in its URL. */
  level: number | null;
  onLevel: (level: number | null) => void;
}) {
  const setLevel = onLevel;
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const current = loaded !== null && loaded.level === level ? loaded : null;
  const runIds = series.map((s) => s.runId).join(',');

  useEffect(() => {
    if (level === null) return;
    let cancelled = false;
    Promise.all(runIds.split(',').map((id) => fetchLevelDetail(id, level))).then(
      (details) => !cancelled && setLoaded({ level, details, error: null }),
      (err: unknown) => !cancelled && setLoaded({ level, details: [], error: (err as Error).message }),
    );
    return () => {
      cancelled = true;
    };
  }, [level, runIds]);

  const shown = current ? series.map((s, i) => ({ s, d: current.details[i] ?? null })) : [];
  return (
    <section className="level-panel compare-level" data-testid="compare-level-panel">
      <h2 className="section-title">
        Inside a level <span className="muted">· the compared runs&apos; percentile spectra at one {parameter} level</span>
      </h2>
      <div className="segmented level-picker" role="group" aria-label={`${parameter} to look inside`}>
        {levels.map((l) => (
          <button key={l} type="button" aria-pressed={l === level} onClick={() => setLevel(l === level ? null : l)} data-testid="compare-open-level" data-level={l}>
            {formatLevel(l)}
          </button>
        ))}
      </div>
      {level !== null && current === null ? <p className="muted">Loading {parameter} {formatLevel(level)}…</p> : null}
      {current?.error ? (
        <p className="error" role="alert">
          {current.error}
        </p>
      ) : null}
      {level !== null && current !== null && !current.error ? (
        <>
          <div className="level-stats">
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Each run's measured window">
            <table className="data" data-testid="compare-level-table">
              <caption className="muted">
                Inside {parameter} {formatLevel(level)}: the measured window of each run
              </caption>
              <thead>
                <tr>
                  <th>run</th>
                  {['min', 'mean', 'p50', 'p99', 'p99.9', 'p99.99', 'max'].map((h) => (
                    <th key={h} className="num">
                      {h} <span className="unit">ms</span>
                    </th>
                  ))}
                  <th className="num">requests</th>
                  <th className="num">errors</th>
                </tr>
              </thead>
              <tbody>
                {shown.map(({ s, d }) => (
                  <tr key={s.key} data-run={s.runId}>
                    <td>
                      <RunSwatch colour={s.colour} dashed={s.dashed} /> {s.label}
                    </td>
                    {d ? (
                      <>
                        {[d.min_ms, d.mean_ms, at(d, 50), at(d, 99), at(d, 99.9), at(d, 99.99), d.max_ms].map((v, i) => (
                          <td key={i} className="num">
                            {formatMs(v)}
                          </td>
                        ))}
                        <td className="num">{formatCount(d.requests)}</td>
                        <td className={d.errors > 0 ? 'num errors' : 'num'}>{formatCount(d.errors)}</td>
                      </>
                    ) : (
                      <td colSpan={9} className="muted">
                        not swept at this {parameter}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
            </div>
          </div>
          <div className="charts">
            <ChartPanel
              title={`Percentile spectrum at ${parameter} ${formatLevel(level)}`}
              subtitle="latency at each percentile of each run's measured window, to p99.99"
              className="chart-wide"
              testId="compare-level-spectrum"
            >
              <SpectrumChart series={shown.filter((x) => x.d !== null).map(({ s, d }) => ({ key: s.key, label: s.label, colour: s.colour, dashed: s.dashed, rows: spectrumRows(d as LevelDetail) }))} />
            </ChartPanel>
          </div>
        </>
      ) : null}
    </section>
  );
}
