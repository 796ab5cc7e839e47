import type { CompareResponse, HeadComparison, LevelComparison, MetricDelta } from '@kneeboard/contracts';
import { formatLevel, formatPercentChange, formatQps } from './format-change.ts';

const ms = (x: number | null) => (x === null ? '—' : `${x.toFixed(x >= 100 ? 0 : 1)} ms`);
const mark = (d: MetricDelta) => (d.verdict === 'regression' ? ' 🔴' : d.verdict === 'improvement' ? ' 🟢' : d.verdict === 'not comparable' ? ' ⚠️' : '');
const cell = (d: MetricDelta, value: (x: number | null) => string) =>
  d.base === null || d.head === null ? `${value(d.base)} → ${value(d.head)}` : `${value(d.base)} → ${value(d.head)} (${formatPercentChange(d)})${mark(d)}`;

/**
 * Text that carries user strings (service, release, run names, flag reasons) inside Markdown:
 * escape what would open HTML, emphasis, code or a link, or break a table cell, and keep it on one
 * line. Interval brackets stay readable: a `[…]` not followed by `(` is not a link.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\`*_<>|~]/g, (c) => `\\${c}`)
    .replace(/\]\(/g, ']\\(')
    .replace(/!\[/g, '!\\[')
    .replace(/[\r\n]+/g, ' ');
}

function flagNotes(level: LevelComparison): string {
  if (level.flags.length === 0) return '';
  return level.flags.map((f) => `not comparable: ${f.side} — ${escapeMarkdown(f.reason)}`).join('; ');
}

function headSection(head: HeadComparison, baseRelease: string, parameter: string, svg: string | undefined): string[] {
  const o = head.overall;
  const out = [`### ${escapeMarkdown(head.run.service)}: ${escapeMarkdown(head.run.release)} vs ${escapeMarkdown(baseRelease)} — ${o.verdict}`, ''];
  out.push(escapeMarkdown(o.summary), '', `<sub>${escapeMarkdown(head.noise.note)}</sub>`, '');
  if (svg) out.push(`![latency versus load](${svg})`, '');
  out.push(`| ${escapeMarkdown(parameter)} | QPS | p50 | p99 | flags |`, '|---:|---|---|---|---|');
  for (const l of head.levels) {
    out.push(`| ${formatLevel(l.level)} | ${cell(l.qps, formatQps)} | ${cell(l.p50_ms, ms)} | ${cell(l.p99_ms, ms)} | ${flagNotes(l)} |`);
  }
  out.push('');
  return out;
}

/** A comparison as Markdown, ready to paste into a pull request: the verdict, then one row per level. */
export function compareMarkdown(report: CompareResponse, parameter: string, links: { view?: string; svg?: string } = {}): string {
  const out = report.heads.flatMap((head) => headSection(head, report.base.release, parameter, links.svg));
  const pct = Math.round(report.settings.min_effect * 100);
  out.push(
    `<sub>Intervals: ${Math.round(report.settings.confidence * 100)}% bootstrap over runs and the requests within them (${report.settings.resamples} resamples); changes under ${pct}% are not called; ⚠️ marks levels where the agent, not the service, was the limit.${links.view ? ` [Open in Kneeboard](${links.view})` : ''}</sub>`,
  );
  return `${out.join('\n')}\n`;
}
