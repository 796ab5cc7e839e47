import { formatLevel, formatMs, formatPercent } from '@kneeboard/contracts/figures';
import Link from 'next/link';
import { linePath, type MultipleCard, type MultiplesView } from '../../lib/endpoint-multiples.ts';
import { formatCompact } from '../../lib/format.ts';
import { LATENCY_SERIES, QPS_SERIES } from '../../lib/series.ts';

const P99_COLOUR = LATENCY_SERIES.find((s) => s.key === 'p99_ms')!.color;

/** The drawing box (SVG units): tick labels left, the QPS plot above the p99 plot, level ticks under both. */
const BOX = { width: 160, height: 106, left: 28, right: 156, qpsTop: 4, p99Top: 50, plot: 36, levels: 100 } as const;
const PLOT_W = BOX.right - BOX.left;

function Plot({ card, top, values, colour }: { card: MultipleCard; top: number; values: Array<number | null>; colour: string }) {
  const d = linePath(
    card.points.map((p, i) => ({ x: p.x, y: values[i] ?? null })),
    PLOT_W,
    BOX.plot,
  );
  return (
    <g transform={`translate(${BOX.left} ${top})`}>
      <rect className="multiple-plot" width={PLOT_W} height={BOX.plot} />
      <path d={d} fill="none" stroke={colour} strokeWidth={1.6} />
      {card.points.map((p, i) => {
        const y = values[i];
        return y === null || y === undefined ? null : <circle key={p.level} cx={p.x * PLOT_W} cy={(1 - y) * BOX.plot} r={p.level === card.kneeLevel ? 2.6 : 1.5} fill={colour} />;
      })}
    </g>
  );
}

/** One endpoint's two small charts on the grid's shared axes, its knee a dashed line through both. */
function MultipleChart({ card, view }: { card: MultipleCard; view: MultiplesView }) {
  const kneeX = card.kneeX === null ? null : BOX.left + card.kneeX * PLOT_W;
  const label = (x: number, y: number, text: string, anchor: 'start' | 'middle' | 'end' = 'end') => (
    <text x={x} y={y} textAnchor={anchor} className="multiple-tick">
      {text}
    </text>
  );
  return (
    <svg viewBox={`0 0 ${BOX.width} ${BOX.height}`} role="img" aria-label={card.label} className="multiple-chart" data-testid="multiple-chart">
      {label(BOX.left - 3, BOX.qpsTop + 7, formatCompact(view.qps.domain[1]))}
      {label(BOX.left - 3, BOX.qpsTop + BOX.plot, '0')}
      {view.p99 ? label(BOX.left - 3, BOX.p99Top + 7, formatCompact(view.p99.domain[1])) : null}
      {view.p99 ? label(BOX.left - 3, BOX.p99Top + BOX.plot, formatCompact(view.p99.domain[0])) : null}
      <Plot card={card} top={BOX.qpsTop} values={card.points.map((p) => p.qps)} colour={QPS_SERIES.color} />
      <Plot card={card} top={BOX.p99Top} values={card.points.map((p) => p.p99)} colour={P99_COLOUR} />
      {label(BOX.left + 3, BOX.qpsTop + 9, 'req/s', 'start')}
      {label(BOX.left + 3, BOX.p99Top + 9, 'p99 ms', 'start')}
      {kneeX === null ? null : <line x1={kneeX} x2={kneeX} y1={BOX.qpsTop} y2={BOX.p99Top + BOX.plot} className="multiple-knee" data-testid="multiple-knee" />}
      {view.xTicks.map((t, i) => (
        <g key={t.level}>{label(BOX.left + t.x * PLOT_W, BOX.levels, formatLevel(t.level), i === 0 ? 'start' : i === view.xTicks.length - 1 ? 'end' : 'middle')}</g>
      ))}
    </svg>
  );
}

/**
 * Small multiples: every endpoint's QPS and p99 against the level on the same axes, in the order
 * they give out (the one that saturates first first and outlined), each knee a dashed line. A card
 * is a link to that endpoint's curve — the selector's own `name=`, as the summary's names are. Names
 * are the user's strings: text only, cut by CSS with the whole name as the title.
 */
export function EndpointMultiples({ view, parameter, current, hrefFor }: { view: MultiplesView; parameter: string; current: string | null; hrefFor: (name: string) => string }) {
  const p99 = view.p99 ? `p99 ${formatMs(view.p99.domain[0])}–${formatMs(view.p99.domain[1])} ms on a log scale` : 'no p99';
  return (
    <section className="panel endpoint-multiples" data-testid="endpoint-multiples" aria-labelledby="multiples-title">
      <h2 id="multiples-title">Each endpoint’s curve</h2>
      <p className="muted endpoints-note">
        Same axes in every chart: req/s from 0 above, {p99} below, against {parameter} {formatLevel(view.x.ticks[0] ?? 0)}–{formatLevel(view.x.ticks[view.x.ticks.length - 1] ?? 0)}
        {view.xScale === 'log' ? ' (log)' : ''}. The dashed line is the endpoint’s own knee; the order is the order they give out.
      </p>
      <ul className="multiples-grid">
        {view.cards.map((c) => (
          <li key={c.name} data-name={c.name} className={c.first ? 'multiple multiple-first' : 'multiple'} aria-current={c.name === current ? 'true' : undefined}>
            <Link href={hrefFor(c.name)} className="multiple-link" data-testid="multiple-link">
              <span className="multiple-head">
                <span className="endpoint-name" title={c.name}>
                  {c.name}
                </span>
              </span>
              <span className="multiple-meta">
                {formatPercent(c.share)} · {c.kneeLevel === null ? 'no knee' : `knee ${formatLevel(c.kneeLevel)}`}
                {c.first ? <span className="endpoint-flag">gives out first</span> : null}
              </span>
              <MultipleChart card={c} view={view} />
            </Link>
          </li>
        ))}
      </ul>
      {view.more > 0 ? <p className="muted">and {view.more} quieter endpoint{view.more === 1 ? '' : 's'}, in the selector above.</p> : null}
    </section>
  );
}
