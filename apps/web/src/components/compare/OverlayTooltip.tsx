import type { OverlayData } from '../../lib/compare-series.ts';
import { formatLevel } from '@kneeboard/contracts/figures';

/** Every run's value at the hovered level; a run that did not sweep it says so instead of showing 0. */
export function OverlayTooltip({
  active,
  label,
  data,
  parameter,
  format,
}: {
  active?: boolean;
  label?: unknown;
  data: OverlayData;
  parameter: string;
  format: (v: number) => string;
}) {
  const row = data.rows.find((r) => r.level === Number(label));
  if (!active || row === undefined) return null;
  return (
    <div className="chart-tooltip" data-testid="chart-tooltip">
      <div className="tt-head">
        {parameter} <strong>{formatLevel(row.level)}</strong>
      </div>
      <table>
        <tbody>
          {data.lines.map((l, i) => {
            const cell = row.cells[i];
            return (
              <tr key={l.key} className={cell?.swept ? undefined : 'dim'}>
                <td>
                  <span className={l.dashed ? 'swatch swatch-dashed' : 'swatch'} style={l.dashed ? { color: l.colour } : { background: l.colour }} />
                  {l.memberLabel}
                </td>
                <td className="num">{!cell?.swept ? 'not measured' : cell.value === null ? '—' : format(cell.value)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
