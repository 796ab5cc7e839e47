import type { Metadata } from 'next';
import { CompareProblem } from '../../components/compare/CompareProblem.tsx';
import { ReviewReport } from '../../components/review/ReviewReport.tsx';
import { comparisonPageTitle, loadComparison } from '../../lib/comparison-data.ts';
import { parseCompareView, type SearchParams } from '../../lib/view-state.ts';

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  return { title: `Review · ${await comparisonPageTitle(await searchParams, 'comparison')}` };
}

/** `/review?base=…&head=…` (the comparison's own query): the comparison as a printable report. */
export default async function ReviewPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const parsed = parseCompareView(await searchParams);
  if (!parsed.ok) return <CompareProblem problem={{ kind: 'invalid', error: parsed.error, empty: parsed.empty }} />;
  const data = await loadComparison(parsed.state);
  if (data.kind !== 'ok') return <CompareProblem problem={data} />;
  return <ReviewReport details={data.details} stats={data.stats} state={parsed.state} generatedAt={Date.now()} />;
}
