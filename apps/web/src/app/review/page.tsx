import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { CompareProblem } from '../../components/compare/CompareProblem.tsx';
import { ReviewReport } from '../../components/review/ReviewReport.tsx';
import { comparisonPageTitle, loadComparison } from '../../lib/comparison-data.ts';
import { readOnlyViewer } from '../../lib/server-credentials.ts';
import { parseCompareView, type SearchParams } from '../../lib/view-state.ts';

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  return { title: `Review · ${await comparisonPageTitle(await searchParams, 'comparison')}` };
}

/** `/review?base=…&head=…` (the comparison's own query): the comparison as a printable report. */
export default async function ReviewPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const parsed = parseCompareView(await searchParams);
  // A malformed link or one naming runs that do not exist answers 404 (the segment's not-found page
  // explains); an empty /compare is the page for picking runs, and an API outage says so.
  if (!parsed.ok && !parsed.empty) notFound();
  if (!parsed.ok) return <CompareProblem problem={{ kind: 'invalid', error: parsed.error, empty: parsed.empty }} />;
  const data = await loadComparison(parsed.state);
  if (data.kind === 'missing') notFound();
  if (data.kind !== 'ok') return <CompareProblem problem={data} />;
  return <ReviewReport details={data.details} sizes={data.sizes} stats={data.stats} slo={data.slo} state={parsed.state} generatedAt={Date.now()} readOnly={await readOnlyViewer()} />;
}
