'use client';

import { CartesianGrid, ErrorBar, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatQps } from '@kneeboard/contracts/figures';
import type { TrendSeries } from '../../lib/release-trend.ts';

/**
 * Peak QPS release by release (oldest first), with the spread of each release's runs as a bar: one
 * chart per load model and swept parameter (lib/release-trend.ts), never one line across them.
 */
export function ReleaseTrends({ series }: { series: TrendSeries[] }) {
  const drawn = series.filter((s) => s.points.length >= 2);
  return (
    <>
      {drawn.map((s) => (
        <ReleaseTrend key={s.key} series={s} labelled={series.length > 1} />
      ))}
    </>
  );
}

function ReleaseTrend({ series, labelled }: { series: TrendSeries; labelled: boolean }) {
  const { points } = series;
  const data = points.map((p) => ({ ...p, spread: [p.qps - p.range[0], p.range[1] - p.qps] }));
  return (
    <section className="panel release-trend" data-testid="release-trend" data-series={series.key} data-points={points.length}>
      <h2 className="panel-title">Peak throughput by release{labelled ? <span className="muted"> · {series.label}</span> : null}</h2>
      <p className="muted small">Mean of each release’s finished runs; the bar spans its lowest to highest run (repeats show run-to-run noise).</p>
      <div style={{ width: '100%', height: 220 }}>
        <ResponsiveContainer>
          <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
            <CartesianGrid stroke="#e5e7eb" vertical={false} />
            <XAxis dataKey="release" tick={{ fontSize: 11 }} />
            <YAxis tickFormatter={(v: number) => formatQps(v)} tick={{ fontSize: 11 }} width={64} label={{ value: 'req/s', angle: -90, position: 'insideLeft', fontSize: 11 }} />
            <Tooltip formatter={(v) => [`${formatQps(typeof v === 'number' ? v : null)} req/s`, 'peak QPS']} />
            <Line type="linear" dataKey="qps" stroke="#1d4ed8" strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false}>
              <ErrorBar dataKey="spread" width={4} stroke="#1d4ed8" strokeOpacity={0.6} />
            </Line>
          </LineChart>
        </ResponsiveContainer>
      </div>
    </section>
  );
}
