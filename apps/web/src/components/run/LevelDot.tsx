import type { DotItemDotProps } from 'recharts';
import type { RowBase } from '../../lib/curve-series.ts';

/**
 * One point per level. The level still being measured is hollow, so a live curve shows which value
 * will still move. `kb-dot` and `data-level` let tests count and find points.
 */
export function renderLevelDot(props: DotItemDotProps, color: string, series: string) {
  const row = props.payload as RowBase | undefined;
  const { cx, cy, index } = props;
  if (row === undefined || cx == null || cy == null || !Number.isFinite(cx) || !Number.isFinite(cy)) {
    return <g key={`gap-${series}-${index}`} />;
  }
  const live = row.inProgress;
  return (
    <circle
      key={`dot-${series}-${row.level}`}
      className={live ? 'kb-dot kb-dot-live' : 'kb-dot'}
      data-series={series}
      data-level={row.level}
      data-in-progress={live ? 'true' : undefined}
      cx={cx}
      cy={cy}
      r={live ? 4.5 : 3.5}
      fill={live ? '#ffffff' : color}
      stroke={color}
      strokeWidth={live ? 2 : 1.5}
    />
  );
}

/** A measured series on the run page: straight segments through its levels, a gap where a value is missing. */
export function levelLineProps(series: string, color: string, label: string) {
  return {
    type: 'linear',
    dataKey: series,
    name: label,
    stroke: color,
    strokeWidth: 2,
    connectNulls: false,
    dot: (props: DotItemDotProps) => renderLevelDot(props, color, series),
    activeDot: { r: 5 },
    isAnimationActive: false,
  } as const;
}
