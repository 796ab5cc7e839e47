'use client';

import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { NO_SERVER_METRICS, type RunCost } from '@kneeboard/contracts';
import { COST_COLOURS } from '@kneeboard/svg-charts';
import { formatBytes, formatCoresUsed, formatLevel, formatPercent, formatQps, formatSignificant } from '@kneeboard/contracts/figures';
import { ChartPanel } from './ChartPanel.tsx';
import { AXIS_LABEL_STYLE, AXIS_LINE, AXIS_TICK, CHART_MARGIN, chartSize, GRID_STROKE } from './chart-style.ts';

/** The same two colours as cost.svg's lines (svg-charts' palette). */
const CORES_COLOUR = COST_COLOURS.cores;
const PER_CORE_COLOUR = COST_COLOURS.perCore;
const HEIGHT = 240;
const num = (v: unknown) => (typeof v === 'number' ? v : null);

/**
 * "What it costs" (issue 28): the server's CPU cores used and the throughput each core delivers,
 * against the level, from what the agent read during each step (`--metrics-url`, `--target-pid`,
 * `--cgroup`); the verdict says whether the knee is where the CPU ran out. A table under the chart
 * carries every figure, and each step's notes (gaps, counter resets). The run view reads the cost
 * (useRunCost) and passes it here and to the open level's panel.
 */
export function CostPanel({ cost, error, parameter }: { cost: RunCost | null; error: string | null; parameter: string }) {

  const rows = cost?.levels.map((l) => ({ level: l.level, cores: l.cores_used, perCore: l.qps_per_core })) ?? [];
  const empty =
    error ??
    (cost === null
      ? 'Reading what the server spent…'
      : cost.levels.length === 0
        ? `${NO_SERVER_METRICS}.`
        : null);

  return (
    <ChartPanel
      title="What it costs"
      subtitle={<>the server’s CPU cores used (mean of each measured window) and requests/s per core, against {parameter}</>}
      legend={
        <>
          <span className="legend-item" style={{ color: CORES_COLOUR }}>
            <span className="swatch" style={{ background: CORES_COLOUR }} />
            <span className="legend-text">cores used</span>
          </span>
          <span className="legend-item" style={{ color: PER_CORE_COLOUR }}>
            <span className="swatch" style={{ background: PER_CORE_COLOUR }} />
            <span className="legend-text">requests/s per core</span>
          </span>
        </>
      }
      footnote={cost && cost.levels.length > 0 ? <CostTable cost={cost} parameter={parameter} /> : undefined}
      empty={empty}
      testId="run-cost"
    >
      {cost?.verdict ? (
        <p className="cost-verdict" data-testid="cost-verdict">
          {cost.verdict}
        </p>
      ) : null}
      {cost?.scaling ? (
        <p className="cost-scaling muted" data-testid="cost-scaling">
          {cost.scaling}
        </p>
      ) : null}
      <LineChart {...chartSize(undefined, HEIGHT)} data={rows} margin={CHART_MARGIN} data-testid="cost-chart">
        <CartesianGrid stroke={GRID_STROKE} />
        <XAxis dataKey="level" tickFormatter={(v: number) => formatLevel(v)} tick={AXIS_TICK} axisLine={AXIS_LINE} tickLine={AXIS_LINE} label={{ value: parameter, position: 'bottom', offset: 4, style: AXIS_LABEL_STYLE }} />
        <YAxis yAxisId="cores" tick={AXIS_TICK} axisLine={AXIS_LINE} tickLine={AXIS_LINE} tickFormatter={(v: number) => formatCoresUsed(v)} domain={[0, 'auto']} label={{ value: 'cores used', angle: -90, position: 'insideLeft', style: AXIS_LABEL_STYLE }} />
        <YAxis yAxisId="perCore" orientation="right" tick={AXIS_TICK} axisLine={AXIS_LINE} tickLine={AXIS_LINE} tickFormatter={(v: number) => formatQps(v)} domain={[0, 'auto']} label={{ value: 'req/s per core', angle: 90, position: 'insideRight', style: AXIS_LABEL_STYLE }} />
        <Tooltip
          isAnimationActive={false}
          labelFormatter={(v) => `${parameter} ${formatLevel(Number(v))}`}
          formatter={(v, name) => [name === 'cores used' ? formatCoresUsed(num(v)) : `${formatQps(num(v))}/s`, name]}
        />
        <Line yAxisId="cores" dataKey="cores" name="cores used" stroke={CORES_COLOUR} strokeWidth={1.75} isAnimationActive={false} connectNulls={false} className="kb-cost-cores" />
        <Line yAxisId="perCore" dataKey="perCore" name="requests/s per core" stroke={PER_CORE_COLOUR} strokeWidth={1.75} isAnimationActive={false} connectNulls={false} className="kb-cost-per-core" />
      </LineChart>
    </ChartPanel>
  );
}

/** Every figure per level, printed through contracts' figures; a step's notes under it. Its seven columns scroll in their own box on a phone. */
function CostTable({ cost, parameter }: { cost: RunCost; parameter: string }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="What each level cost the server">
    <table className="curve-table cost-table" data-testid="cost-table">
      <thead>
        <tr>
          <th scope="col">{parameter}</th>
          <th scope="col">cores used</th>
          <th scope="col">peak memory</th>
          <th scope="col">req/s per core</th>
          <th scope="col">CPU-s per 1,000 req</th>
          <th scope="col">efficiency per core</th>
          <th scope="col">notes</th>
        </tr>
      </thead>
      <tbody>
        {cost.levels.map((l) => (
          <tr key={l.level} data-level={l.level}>
            <th scope="row">{formatLevel(l.level)}</th>
            <td>{l.cores_available === null ? formatCoresUsed(l.cores_used) : `${formatCoresUsed(l.cores_used)} of ${formatCoresUsed(l.cores_available)}`}</td>
            <td>{formatBytes(l.peak_memory_bytes)}</td>
            <td>{formatQps(l.qps_per_core)}</td>
            <td>{formatSignificant(l.cpu_seconds_per_1k)}</td>
            <td>{formatPercent(l.efficiency_per_core)}</td>
            <td className="muted">{l.notes.join(' · ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}
