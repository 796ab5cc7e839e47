'use client';

import { useRouter } from 'next/navigation';
import Link from 'next/link';
import { CartesianGrid, ErrorBar, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatLevel, formatMs, formatQps } from '@kneeboard/contracts/figures';
import { noChangeNote, type FeatureTrend, type SeriesTrends, type TrendPoint } from '../../lib/history-trends.ts';
import './history-trends.css';

const FORMAT: Record<string, (v: number | null) => string> = { 'req/s': formatQps, ms: formatMs, level: (v) => (v === null ? '–' : formatLevel(v)) };

/** A release's dot: filled when every run counted, hollow when some were left out (generator-limited, partial). */
function Dot(props: { cx?: number; cy?: number; payload?: TrendPoint }) {
  const { cx, cy, payload } = props;
  if (cx === undefined || cy === undefined || payload?.value === null) return null;
  const hollow = (payload?.excluded.length ?? 0) > 0;
  return <circle cx={cx} cy={cy} r={4} className={hollow ? 'trend-dot trend-dot-excluded' : 'trend-dot'} />;
}

function TrendTooltip({ active, payload, unit }: { active?: boolean; payload?: Array<{ payload: TrendPoint }>; unit: string }) {
  const p = active ? payload?.[0]?.payload : undefined;
  if (!p) return null;
  const format = FORMAT[unit] ?? formatQps;
  return (
    <div className="chart-tooltip">
      <strong>{p.release}</strong>: {format(p.value)} {unit === 'level' ? '' : unit}
      {p.spread ? ` (${format(p.value! - p.spread[0])} … ${format(p.value! + p.spread[1])})` : ''}
      {p.excluded.map((e) => (
        <div key={e} className="muted small">
          left out: {e}
        </div>
      ))}
      <div className="muted small">click to open</div>
    </div>
  );
}

function FeatureChart({ trend }: { trend: FeatureTrend }) {
  const router = useRouter();
  const format = FORMAT[trend.unit] ?? formatQps;
  return (
    <div className="history-chart" data-testid="history-chart" data-feature={trend.feature} data-points={trend.points.filter((p) => p.value !== null).length} data-changes={trend.changes.length}>
      <h3 className="small">
        {trend.title} <span className="muted">({trend.unit})</span>
      </h3>
      <div style={{ width: '100%', height: 180 }}>
        <ResponsiveContainer>
          <LineChart
            data={trend.points}
            margin={{ top: 16, right: 16, bottom: 4, left: 4 }}
            onClick={(state) => {
              const i = typeof state?.activeTooltipIndex === 'number' ? state.activeTooltipIndex : Number(state?.activeTooltipIndex);
              const href = trend.points[i]?.href;
              if (href) router.push(href);
            }}
          >
            <CartesianGrid stroke="#e5e7eb" vertical={false} />
            <XAxis dataKey="release" tick={{ fontSize: 11 }} interval="preserveStartEnd" />
            <YAxis tickFormatter={(v: number) => format(v)} tick={{ fontSize: 11 }} width={56} domain={trend.axis.domain} ticks={trend.axis.ticks} />
            <Tooltip content={<TrendTooltip unit={trend.unit} />} />
            {trend.changes.map((c) => (
              <ReferenceLine key={c.release} x={c.release} stroke="#b42318" strokeDasharray="4 3" label={{ value: c.label, position: 'top', fontSize: 11, fill: '#b42318' }} />
            ))}
            <Line type="linear" dataKey="value" stroke="#1d4ed8" strokeWidth={2} dot={<Dot />} activeDot={{ r: 6, cursor: 'pointer' }} connectNulls={false} isAnimationActive={false}>
              <ErrorBar dataKey="spread" width={4} stroke="#1d4ed8" strokeOpacity={0.6} />
            </Line>
          </LineChart>
        </ResponsiveContainer>
      </div>
    </div>
  );
}

/**
 * A service's history: per comparable series, a chart per feature (peak QPS, capacity under the
 * SLO, knee, p99 at the base knee) against release order, with run-to-run intervals, hollow dots
 * where runs were left out, and the change points (E-divisive means) marked and listed.
 */
export function HistoryTrends({ series }: { series: SeriesTrends[] }) {
  return (
    <>
      {series.map((s) => {
        const changes = s.features.flatMap((f) => f.changes.map((c) => ({ ...c, title: f.title })));
        return (
          <section key={s.key} className="panel history-trends" data-testid="history-trends" data-series={s.key}>
            <h2 className="panel-title">
              History <span className="muted">· {s.name}</span>
            </h2>
            <p className="muted small">
              One point per release (geometric mean of its runs, the bar its run-to-run interval); hollow: some runs left out (generator-limited or partial). Dashed: a change point. Click a point
              to open its run, or the comparison with the release before.
            </p>
            <div className="history-grid">
              {s.features.map((f) => (
                <FeatureChart key={f.feature} trend={f} />
              ))}
            </div>
            {changes.length > 0 ? (
              <ul className="history-changes" data-testid="history-changes">
                {changes.map((c) => (
                  <li key={`${c.title}-${c.release}`}>
                    {c.title} <strong>{c.label}</strong> at {c.release} — <Link href={c.href}>compare with the release before</Link>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted small" data-testid="history-no-change">
                {noChangeNote(s)}
              </p>
            )}
          </section>
        );
      })}
    </>
  );
}
