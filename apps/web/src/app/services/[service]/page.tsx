import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ApiErrorNotice } from '../../../components/common/ApiErrorNotice.tsx';
import { ReleaseCompareForm } from '../../../components/releases/ReleaseCompareForm.tsx';
import { ReleaseSection } from '../../../components/releases/ReleaseSection.tsx';
import { HistoryTrends } from '../../../components/releases/HistoryTrends.tsx';
import { ReleaseTrends } from '../../../components/releases/ReleaseTrend.tsx';
import { RunSelectionProvider } from '../../../components/runs/RunSelection.tsx';
import { WebhooksSection } from '../../../components/webhooks/WebhooksSection.tsx';
import { ENDPOINTS } from '@kneeboard/contracts';
import { ApiUnavailableError, getServiceReleases } from '../../../lib/api.ts';
import { callWithCredential } from '../../../lib/credential-call.ts';
import { historyTrends } from '../../../lib/history-trends.ts';
import { requestCredential } from '../../../lib/server-credentials.ts';
import { releaseTrends } from '../../../lib/release-trend.ts';
import { releaseViews } from '../../../lib/releases.ts';

type Params = Promise<{ service: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: decodeURIComponent((await params).service) };
}

/** A service's runs grouped by release, newest release first, each comparable with the one before. */
export default async function ServicePage({ params }: { params: Params }) {
  const service = decodeURIComponent((await params).service);
  let releases;
  try {
    releases = (await getServiceReleases(service)).releases;
  } catch (err) {
    if (err instanceof ApiUnavailableError) return <ApiErrorNotice message={err.message} apiUrl={err.apiUrl} />;
    throw err;
  }
  if (releases.length === 0) notFound();
  const views = releaseViews(releases);
  // The history's series and change points; an API without it (or a read it refuses) leaves the simple
  // trend. A cold history of many runs takes the API a while: the page does not wait for it (3 s), the
  // API goes on and keeps the answer for the next visit.
  const history = await callWithCredential(ENDPOINTS.serviceHistory, { params: { service } }, await requestCredential(), 3_000);
  const trends = history.ok ? historyTrends(service, history.value) : [];
  const runs = views.reduce((n, v) => n + v.runs.length, 0);
  return (
    <>
      <div className="crumbs">
        <Link href="/services">Services</Link> / {service}
      </div>
      <div className="page-title">
        <h1 data-testid="service-title">{service}</h1>
        <span className="muted">
          {views.length} {views.length === 1 ? 'release' : 'releases'} · {runs} {runs === 1 ? 'run' : 'runs'} ·{' '}
          <Link href={`/?service=${encodeURIComponent(service)}`}>as a list</Link>
        </span>
      </div>
      {trends.length > 0 ? <HistoryTrends series={trends} /> : <ReleaseTrends series={releaseTrends(releases)} />}
      <ReleaseCompareForm service={service} views={views} />
      <p className="muted small release-hint">
        Newest release first. <em>Compare with …</em> puts the release’s newest finished run against the newest finished run of the release
        before it. Or tick any runs (2 to 8) and <em>Compare selected</em>.
      </p>
      <RunSelectionProvider runs={views.flatMap((v) => v.runs.map((r) => ({ id: r.id, created_at: r.created_at })))}>
        {views.map((v) => (
          <ReleaseSection key={v.release} view={v} />
        ))}
      </RunSelectionProvider>
      <WebhooksSection service={service} />
    </>
  );
}
