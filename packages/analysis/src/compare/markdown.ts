import type { CompareResponse, HeadComparison, LevelComparison, MetricDelta } from '@kneeboard/contracts';
import { escapeMarkdownText } from '../markdown-text.ts';
import { formatChangeWithInterval, formatLevel, formatMs, formatPercentSetting, formatQps } from '@kneeboard/contracts/figures';

const ms = (x: number | null) => (x === null ? formatMs(x) : `${formatMs(x)} ms`);
const mark = (d: MetricDelta) => (d.verdict === 'regression' ? ' 🔴' : d.verdict === 'improvement' ? ' 🟢' : d.verdict === 'not comparable' ? ' ⚠️' : '');
const cell = (d: MetricDelta, value: (x: number | null) => string) =>
  d.base === null || d.head === null ? `${value(d.base)} → ${value(d.head)}` : `${value(d.base)} → ${value(d.head)} (${formatChangeWithInterval(d.change, d.ci_low, d.ci_high)})${mark(d)}`;

function flagNotes(level: LevelComparison): string {
  if (level.flags.length === 0) return '';
  return level.flags.map((f) => `not comparable: ${f.side} — ${escapeMarkdownText(f.reason)}`).join('; ');
}

/** Per endpoint, this head's line: `**Per endpoint:** checkout: faster (−18% p99 at 64); search: slower (+12% p99 at 64)`. */
function endpointLines(report: CompareResponse, head: number): string[] {
  const e = report.endpoints;
  if (!e || e.names.length === 0) return [];
  const parts = e.names.flatMap((n) => (n.heads[head] ? [escapeMarkdownText(n.heads[head].sentence)] : []));
  const more = e.omitted > 0 ? ` (and ${e.omitted} quieter endpoint${e.omitted === 1 ? '' : 's'} not compared)` : '';
  return [`**Per endpoint:** ${parts.join('; ')}${more}`, ''];
}

function headSection(report: CompareResponse, head: HeadComparison, index: number, parameter: string, svg: string | undefined): string[] {
  const o = head.overall;
  const out = [`### ${escapeMarkdownText(head.run.service)}: ${escapeMarkdownText(head.run.release)} vs ${escapeMarkdownText(report.base.release)} — ${o.verdict}`, ''];
  if (report.name !== undefined) out.push(`Endpoint **${escapeMarkdownText(report.name)}** only.`, '');
  out.push(escapeMarkdownText(o.summary), '', ...endpointLines(report, index), `<sub>${[head.noise.note, head.noise.method].filter(Boolean).join(' ')}</sub>`, '');
  const newer = head.noise.newer;
  if (newer) out.push(`<sub>A newer noise basis exists: ${newer.runs} more repeat${newer.runs === 1 ? '' : 's'} of this service since this comparison's — recompute with \`noise_asof=${newer.asof}\` (or without it, for the newest).</sub>`, '');
  if (head.capacity) out.push(`**Capacity:** ${escapeMarkdownText(head.capacity.summary)}`, '');
  if (svg) out.push(`![latency versus load](${svg})`, '');
  out.push(`| ${escapeMarkdownText(parameter)} | QPS | p50 | p99 | flags |`, '|---:|---|---|---|---|');
  for (const l of head.levels) {
    out.push(`| ${formatLevel(l.level)} | ${cell(l.qps, formatQps)} | ${cell(l.p50_ms, ms)} | ${cell(l.p99_ms, ms)} | ${flagNotes(l)} |`);
  }
  out.push('');
  // What the change cost the server: only where both sides read CPU (nothing at all otherwise).
  if (head.cost) out.push('**What it costs:**', '', ...head.cost.levels.map((c) => `- ${escapeMarkdownText(c.sentence)}`), '', `<sub>${escapeMarkdownText(head.cost.note)}</sub>`, '');
  return out;
}

/**
 * A comparison as Markdown, ready to paste into a pull request: the verdict, then one row per level.
 * Every user string (service, release, parameter, summary, flag reasons) is escaped here, once.
 */
export function compareMarkdown(report: CompareResponse, parameter: string, links: { view?: string; svg?: string } = {}): string {
  const out = report.heads.flatMap((head, i) => headSection(report, head, i, parameter, links.svg));
  out.push(
    `<sub>Intervals: ${formatPercentSetting(report.settings.confidence)} for all the verdicts together, on the log of head ÷ base, from the run-to-run spread and each run's own sampling noise; changes under ${formatPercentSetting(report.settings.min_effect)} are not called; ⚠️ marks levels where the agent, not the service, was the limit.${links.view ? ` [Open in Kneeboard](${links.view})` : ''}</sub>`,
  );
  return `${out.join('\n')}\n`;
}
