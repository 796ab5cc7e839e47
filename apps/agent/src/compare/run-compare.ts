import { markdownLinkTarget } from '@kneeboard/analysis';
import { compareMarkdown } from '@kneeboard/analysis/compare';
import { endpointUrl } from '@kneeboard/api-client';
import { CompareResponse, ENDPOINTS, RELEASE_REF_PREFIX, type CapacityChange, type SloClause } from '@kneeboard/contracts';
import { capacityChanges } from './capacity-compare.ts';
import { formatPercentSetting } from '@kneeboard/contracts/figures';
import { capacityGate, gate, type GateResult } from './gate.ts';
import { getOrExplain, resolveRun } from './resolve-run.ts';

export interface CompareFlags {
  base: string;
  head: string[];
  service?: string;
  failOnRegression: number;
  api: string;
  web: string;
  /** Needed when the API's reads need a token (KNEEBOARD_READ=token). */
  token?: string;
  json?: boolean;
  /** Also compare capacity within these SLOs (`--slo`). */
  slo?: SloClause[];
  /** With `slo`: the smallest significant capacity drop that fails the gate (`--fail-on-capacity-drop`). */
  failOnCapacityDrop?: number;
}

/** Fetches the comparison, prints the verdict table, and says whether the gate fails. */
export async function runCompare(flags: CompareFlags, out: NodeJS.WritableStream): Promise<GateResult> {
  // A side may be a group of repeats, `ID,ID,ID`: the API compares them as one, noise included.
  // `release:SERVICE@RELEASE` (every finished run of the release) goes to the API as written: it
  // resolves the release and answers 404 naming it when there is none.
  const resolveGroup = async (refs: string, flag: string) =>
    refs.trim().startsWith(RELEASE_REF_PREFIX)
      ? refs.trim()
      : (await Promise.all(refs.split(',').map((r) => resolveRun(flags.api, r.trim(), flags.service, flag, flags.token)))).join(',');
  const base = await resolveGroup(flags.base, '--base');
  const heads = await Promise.all(flags.head.map((h) => resolveGroup(h, '--head')));
  const qs = new URLSearchParams([['base', base], ...heads.map((h): [string, string] => ['head', h]), ['min_effect', String(flags.failOnRegression)]]);
  const report = await getOrExplain(endpointUrl(ENDPOINTS.compare, { query: qs }, flags.api), flags.api, CompareResponse, 'compare', flags.token);
  const tableGate = gate(report);
  const capacity: CapacityChange[] = flags.slo ? await capacityChanges(report, flags.slo, flags.api, flags.token) : [];
  const capacityFail = flags.failOnCapacityDrop === undefined ? { failed: false, reasons: [] } : capacityGate(capacity, flags.failOnCapacityDrop);
  const result: GateResult = { ...tableGate, failed: tableGate.failed || capacityFail.failed, reasons: [...tableGate.reasons, ...capacityFail.reasons] };
  if (flags.json) {
    out.write(`${JSON.stringify({ ...report, ...(flags.slo ? { capacity } : {}), gate: result }, null, 2)}\n`);
  } else {
    // The link pins the noise basis this answer used (a single run borrows earlier repeats'), so it shows this verdict later too.
    const asof = report.heads.find((h) => h.noise.history)?.noise.history?.asof;
    const view = `${flags.web}/compare?${new URLSearchParams([['base', base], ...heads.map((h): [string, string] => ['head', h]), ...(asof === undefined ? [] : [['noise_asof', String(asof)] as [string, string]])])}`;
    // User strings (service, release, names) are escaped for Markdown by compareMarkdown.
    out.write(compareMarkdown(report, report.base.parameter, { view: markdownLinkTarget(view) ?? undefined }));
    if (result.not_comparable.length > 0) {
      out.write(`\nNOT COMPARABLE (these levels neither pass nor fail the gate):\n${result.not_comparable.map((l) => `  - ${l}\n`).join('')}`);
    }
    // The summaries carry the releases, as the table does; printed as plain lines, as the gate's are.
    if (capacity.length > 0) out.write(`\nCAPACITY:\n${capacity.map((c) => `  - ${c.summary}\n`).join('')}`);
    if (flags.failOnCapacityDrop !== undefined) {
      const pct = formatPercentSetting(flags.failOnCapacityDrop);
      out.write(capacityFail.failed ? `\nFAIL: significant capacity drop of ${pct} or more\n` : `\nPASS: no significant capacity drop of ${pct} or more\n`);
    }
    out.write(tableGate.failed ? `\nFAIL: significant regression of ${formatPercentSetting(flags.failOnRegression)} or more\n` : '\nPASS: no significant regression\n');
  }
  return result;
}
