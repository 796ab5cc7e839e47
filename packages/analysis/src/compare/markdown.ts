import type { CompareResponse, MetricDelta } from '@kneeboard/contracts';
import { formatLevel, formatPercentChange, formatQps } from './format-change.ts';

const ms = (x: number | null) => (x === null ? '—' : `${x.toFixed(x >= 100 ? 0 : 1)} ms`);
const mark = (d: MetricDelta) => (d.verdict === 'regression' ? ' 🔴' : d.verdict === 'improvement' ? ' 🟢' : '');
const cell = (d: MetricDelta, value: (x: number | null) => string) =>
  d.base === null || d.head === null ? `${value(d.base)} → ${value(d.head)}` : `${value(d.base)} → ${value(d.head)} (${formatPercentChange(d)})${mark(d)}`;

/** A comparison as Markdown, ready to paste into a pull request: the verdict, then one row per level. */
export function compareMarkdown(report: CompareResponse, parameter: string, links: { view?: string; svg?: string } = {}): string {
  const out: string[] = [];
  for (const head of report.heads) {
    const o = head.overall;
    out.push(`### ${head.run.service}: ${head.run.release} vs ${report.base.release} — ${o.verdict}`);
    out.push('');
    out.push(o.summary);
    out.push('');
    if (links.svg) out.push(`![latency versus load](${links.svg})`, '');
    out.push(`| ${parameter} | QPS | p50 | p99 |`);
    out.push('|---:|---|---|---|');
    for (const l of head.levels) {
      out.push(`| ${formatLevel(l.level)} | ${cell(l.qps, formatQps)} | ${cell(l.p50_ms, ms)} | ${cell(l.p99_ms, ms)} |`);
    }
    out.push('');
  }
  const pct = Math.round(report.settings.min_effect * 100);
  out.push(
    `<sub>Intervals: ${Math.round(report.settings.confidence * 100)}% bootstrap over raw samples (${report.settings.resamples} resamples); changes under ${pct}% are not called.${links.view ? ` [Open in Kneeboard](${links.view})` : ''}</sub>`,
  );
  return `${out.join('\n')}\n`;
}
