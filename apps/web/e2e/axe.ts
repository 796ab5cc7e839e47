/**
 * axe-core in a real page: inject the library, run every rule, and keep the violations whose
 * impact is serious or critical (the ones that stop someone using the page). Moderate and minor
 * findings are returned separately so a spec can print them without failing on them.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_PATH = require.resolve('axe-core');

export interface AxeNode {
  target: string[];
  html: string;
  failureSummary?: string;
}

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  nodes: AxeNode[];
}

export interface AxeReport {
  /** serious or critical: a spec asserts there are none. */
  blocking: AxeViolation[];
  /** moderate or minor: reported, not failed on. */
  other: AxeViolation[];
}

const BLOCKING = new Set(['serious', 'critical']);

export async function runAxe(page: Page): Promise<AxeReport> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.addScriptTag({ path: AXE_PATH });
  const violations = await page.evaluate(async () => {
    // `axe` is the global the script tag defines; the page's own types do not know it.
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations;
  });
  const all = violations as AxeViolation[];
  return {
    blocking: all.filter((v) => v.impact !== null && BLOCKING.has(v.impact)),
    other: all.filter((v) => v.impact === null || !BLOCKING.has(v.impact)),
  };
}

/** One line per rule and one per offending element (at most `perRule`), readable in a test failure. */
export function formatViolations(label: string, violations: AxeViolation[], perRule = 6): string {
  if (violations.length === 0) return `${label}: no violations`;
  const lines = [`${label}: ${violations.length} rule(s) violated`];
  for (const v of violations) {
    lines.push(`  [${v.impact ?? '?'}] ${v.id}: ${v.help} (${v.nodes.length} element(s)) ${v.helpUrl}`);
    for (const n of v.nodes.slice(0, perRule)) {
      const why = (n.failureSummary ?? '').split('\n').slice(1).join(' ').trim();
      lines.push(`      ${n.target.join(' ')}  ${n.html.slice(0, 120)}${why ? `\n        → ${why.slice(0, 240)}` : ''}`);
    }
    if (v.nodes.length > perRule) lines.push(`      … ${v.nodes.length - perRule} more`);
  }
  return lines.join('\n');
}
