import type { Metadata } from 'next';
import Link from 'next/link';
import type { ServiceSummary } from '@kneeboard/contracts';
import { ApiErrorNotice } from '../../components/common/ApiErrorNotice.tsx';
import { Time } from '../../components/common/Time.tsx';
import { ApiUnavailableError, listServices } from '../../lib/api.ts';

export const metadata: Metadata = { title: 'Services' };

/** Every service with runs, most recently run first; each opens its release history. */
export default async function ServicesPage() {
  let services: ServiceSummary[];
  try {
    services = await listServices();
  } catch (err) {
    if (err instanceof ApiUnavailableError) return <ApiErrorNotice message={err.message} apiUrl={err.apiUrl} />;
    throw err;
  }
  return (
    <>
      <div className="page-title">
        <h1>Services</h1>
        <span className="muted">{services.length} {services.length === 1 ? 'service' : 'services'}</span>
      </div>
      {services.length === 0 ? (
        <div className="panel notice">
          <h2>No runs yet</h2>
          <p className="muted">Services appear here once a sweep has been recorded against them.</p>
        </div>
      ) : (
        <div className="panel table-wrap">
          <table className="data services-table" data-testid="services-table">
            <thead>
              <tr>
                <th>Service</th>
                <th className="num">Releases</th>
                <th className="num">Runs</th>
                <th>Last run</th>
              </tr>
            </thead>
            <tbody>
              {services.map((s) => (
                <tr key={s.service} className="row-link">
                  <td>
                    <Link className="stretch" href={`/services/${encodeURIComponent(s.service)}`}>
                      {s.service}
                    </Link>
                  </td>
                  <td className="num">{s.releases}</td>
                  <td className="num">{s.runs}</td>
                  <td>
                    <Time ms={s.last_run_at} relative />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
