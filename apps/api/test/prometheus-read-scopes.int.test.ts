import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedToken } from '@kneeboard/contracts';
import { startTestApi, type TestApi } from './helpers.ts';

// Issue 28: the API reading a run's metrics from a Prometheus is a person's change (write scope), not
// an agent's; and whoever calls it, only the hosts the allow-list names are read.
describe('POST /runs/{id}/server-metrics/prometheus with tokens required', () => {
  const ADMIN = 'kb_admin_prometheus_read_test_0123456789abcdef';
  let secured: TestApi;
  beforeAll(async () => {
    secured = await startTestApi({ access: { mode: 'required', read: 'token', adminToken: ADMIN } });
  });
  afterAll(async () => secured.close());

  const mint = async (scope: 'ingest' | 'write') => {
    const res = await fetch(`${secured.url}/api/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: scope, scope }) });
    return CreatedToken.parse(await res.json()).token;
  };
  const read = (id: string, token: string, url: string) =>
    fetch(`${secured.url}/api/v1/runs/${id}/server-metrics/prometheus`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ url }) });

  it('an ingest token is refused; a write token passes, and a host off the allow-list is a 400 naming url', async () => {
    const [ingest, write] = [await mint('ingest'), await mint('write')];
    const created = await fetch(`${secured.url}/api/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${ingest}`, 'content-type': 'application/json' }, body: JSON.stringify({ service: 'svc', release: 'v1' }) });
    const { id } = (await created.json()) as { id: string };
    expect((await read(id, ingest, 'http://127.0.0.1:9090')).status).toBe(403);
    const off = await read(id, write, 'http://10.1.2.3:9090');
    expect(off.status).toBe(400);
    expect(await off.json()).toMatchObject({ field: 'url', message: expect.stringContaining('KNEEBOARD_PROMETHEUS_ALLOW') });
  });
});
