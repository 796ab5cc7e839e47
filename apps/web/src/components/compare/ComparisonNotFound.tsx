import Link from 'next/link';

/** A comparison link that is malformed or names runs this API does not have (HTTP 404). */
export function ComparisonNotFound() {
  return (
    <div className="panel notice" data-testid="compare-problem">
      <h1>This comparison cannot be shown</h1>
      <p>
        The link is malformed or names runs this Kneeboard API does not have (it may have been made against another one, or the runs were
        deleted).
      </p>
      <p className="muted">
        A comparison is <code>/compare?base=&lt;run id&gt;&amp;head=&lt;run id&gt;</code> (up to 7 heads). The quickest way in is a
        service’s page: <Link href="/services">pick a service</Link> and use <em>Compare with previous release</em>.
      </p>
    </div>
  );
}
