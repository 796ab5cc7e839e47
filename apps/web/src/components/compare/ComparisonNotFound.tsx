import { parseReleaseRef } from '@kneeboard/contracts';
import { headers } from 'next/headers';
import Link from 'next/link';
import { listReleaseRunIds } from '../../lib/api.ts';

/** The link's release sides that have no finished run (the reason a release link is a 404). */
async function releasesWithoutRuns(): Promise<string[]> {
  const search = (await headers()).get('x-kb-search') ?? '';
  const params = new URLSearchParams(search);
  const refs = [params.get('base') ?? '', ...params.getAll('head')].map((t) => ({ text: t.trim(), ref: parseReleaseRef(t.trim()) }));
  const out: string[] = [];
  for (const { text, ref } of refs) {
    if (ref === null) continue;
    // Unreachable API: say nothing more than the generic sentence.
    const ids = await listReleaseRunIds(ref.service, ref.release).catch(() => null);
    if (ids !== null && ids.length === 0) out.push(text);
  }
  return out;
}

/** A comparison link that is malformed or names runs or releases this API does not have (HTTP 404). */
export async function ComparisonNotFound() {
  const releases = await releasesWithoutRuns();
  return (
    <div className="panel notice" data-testid="compare-problem">
      <h1>This comparison cannot be shown</h1>
      {releases.length > 0 ? (
        <p data-testid="missing-releases">
          No finished run of {releases.map((r, i) => (
            <span key={r}>
              {i > 0 ? ', ' : ''}
              <code>{r}</code>
            </span>
          ))}
          : that release has no finished run on this Kneeboard API (check the service and release names on the service’s page).
        </p>
      ) : (
        <p>
          The link is malformed or names runs this Kneeboard API does not have (it may have been made against another one, or the runs were
          deleted).
        </p>
      )}
      <p className="muted">
        A comparison is <code>/compare?base=&lt;run id&gt;&amp;head=&lt;run id&gt;</code> (up to 7 heads); a side may be repeats,{' '}
        <code>&lt;id&gt;,&lt;id&gt;,&lt;id&gt;</code>, or every finished run of a release, <code>release:&lt;service&gt;@&lt;release&gt;</code>. The
        quickest way in is a service’s page: <Link href="/services">pick a service</Link> and use <em>Compare releases</em>.
      </p>
    </div>
  );
}
