import type { CurvePoint } from '@kneeboard/contracts';
import type { QpsRow, RowBase } from '../../lib/curve-series.ts';
import { formatLevel, formatMs, formatPercent, formatQps, formatSeconds, formatShare } from '@kneeboard/contracts/figures';
import { formatCount } from '../../lib/format.ts';
import { LATENCY_SERIES, QPS_SERIES, SPLIT_SERIES, USL_SERIES, type LatencyKey } from '../../lib/series.ts';

export type TooltipVariant = 'qps' | 'latency' | 'split';

interface Props {
  active?: boolean;
  payload?: ReadonlyArray<{ payload?: unknown }>;
  parameter: string;
  variant: TooltipVariant;
  visible?: ReadonlyArray<LatencyKey>;
  /** QPS: the USL line is drawn, so say what it predicts at this level. */
  showFit?: boolean;
}

function Line({ color, label, value, unit, dim = false }: { color?: string; label: string; value: string; unit: string; dim?: boolean }) {
  return (
    <tr className={dim ? 'dim' : undefined}>
      <td>
        {color ? <span className="swatch" style={{ background: color }} /> : null}
        {label}
      </td>
      <td className="num">
        {value} <span className="unit">{unit}</span>
      </td>
    </tr>
  );
}

function QpsLines({ row, showFit }: { row: QpsRow; showFit: boolean }) {
  return (
    <>
      <Line color={QPS_SERIES.color} label="throughput" value={formatQps(row.qps)} unit="req/s" />
      {showFit && row.fitted !== null ? <Line color={USL_SERIES.color} label="USL fit" value={formatQps(row.fitted)} unit="req/s" /> : null}
      {row.efficiency !== null ? <Line label="efficiency" value={formatPercent(row.efficiency)} unit="" /> : null}
    </>
  );
}

/** Exact values for one level: QPS with one decimal, milliseconds with two, and the counts behind them. */
export function CurveTooltip({ active, payload, parameter, variant, visible = [], showFit = false }: Props) {
  const row = payload?.[0]?.payload as RowBase | undefined;
  if (!active || row === undefined) return null;
  const p: CurvePoint = row.point;
  const errorRate = p.requests > 0 ? p.errors / p.requests : 0;
  return (
    <div className="chart-tooltip" data-testid="chart-tooltip">
      <div className="tt-head">
        {parameter} <strong>{formatLevel(p.level)}</strong>
        {p.in_progress ? <span className="measuring"> · measuring</span> : null}
      </div>
      <table>
        <tbody>
          {variant === 'qps' ? <QpsLines row={row as QpsRow} showFit={showFit} /> : null}
          {variant === 'latency'
            ? LATENCY_SERIES.map((s) => <Line key={s.key} color={s.color} label={s.label} value={formatMs(p[s.key])} unit="ms" dim={!visible.includes(s.key)} />)
            : null}
          {variant === 'split' ? (
            <>
              {[...SPLIT_SERIES].reverse().map((s) => (
                <Line key={s.key} color={s.color} label={s.label} value={formatMs(p[`${s.key}_p50_ms`])} unit="ms" />
              ))}
              <Line label="latency p50" value={formatMs(p.p50_ms)} unit="ms" />
            </>
          ) : null}
          <Line label="requests" value={formatCount(p.requests)} unit="" />
          <Line label="errors" value={`${formatCount(p.errors)}${p.errors > 0 ? ` (${formatShare(errorRate)})` : ''}`} unit="" />
          <Line label="window" value={formatSeconds(p.window_s)} unit="s" />
        </tbody>
      </table>
    </div>
  );
}
