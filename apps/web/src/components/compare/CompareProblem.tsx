import Link from 'next/link';
import type { ComparisonData } from '../../lib/comparison-data.ts';
import { ApiErrorNotice } from '../common/ApiErrorNotice.tsx';

/** Why a comparison cannot be shown, and where to go instead. */
export function CompareProblem({ problem }: { problem: { kind: 'invalid'; error: string; empty: boolean } | Exclude<ComparisonData, { kind: 'ok' }> }) {
  if (problem.kind === 'unavailable') return <ApiErrorNotice message={problem.error.message} apiUrl={problem.error.apiUrl} />;
  return (
    <div className="panel notice" data-testid="compare-problem">
      {problem.kind === 'missing' ? (
        <>
          <h1>{problem.ids.length === 1 ? 'A compared run does not exist' : 'Some compared runs do not exist'}</h1>
          <p>
            The API knows no run {problem.ids.map((id) => <code key={id}>{id}</code>)}. The link may have been made against another Kneeboard API.
          </p>
        </>
      ) : (
        <>
          <h1>{problem.empty ? 'Compare runs' : 'This comparison cannot be read'}</h1>
          <p>{problem.error}</p>
        </>
      )}
      <p className="muted">
        A comparison is <code>/compare?base=&lt;run id&gt;&amp;head=&lt;run id&gt;</code> (up to 7 heads). The quickest way in is a service’s
        page: <Link href="/services">pick a service</Link> and use <em>Compare with previous release</em>.
      </p>
    </div>
  );
}
