import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError, CompareResponse } from '@kneeboard/contracts';
import { storeSyntheticRun } from './helpers.ts';
import { startServerProcess } from '../testing/spawn.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'kb-noise-basis-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const SERVICE = 'pinned-svc';
const LEVELS = [1, 2, 4, 8];

async function compare(url: string, qs: string): Promise<CompareResponse> {
  const res = await fetch(`${url}/api/v1/compare?${qs}`);
  expect(res.status).toBe(200);
  return CompareResponse.parse(await res.json());
}

/** What a reader acts on: every verdict, interval and the basis they rest on — not the offer of a newer one. */
const verdicts = (r: CompareResponse) => JSON.stringify(r.heads.map((h) => ({ levels: h.levels, overall: h.overall, noise: { ...h.noise, newer: undefined } })));
const repeat = (url: string, release: string, seed: number, qpsScale: number) =>
  storeSyntheticRun(url, { seed, release, service: SERVICE, levels: LEVELS, seconds: 2, qpsScale, latencyScale: 1 / qpsScale });

describe('a comparison of single runs pins the noise it borrowed', () => {
  it('reproduces byte-identical verdicts with noise_asof after more repeats are stored and after a restart, and offers the newer basis', async () => {
    let api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
    try {
      const old = [await repeat(api.url, 'r0', 501, 1), await repeat(api.url, 'r0', 502, 1.02), await repeat(api.url, 'r0', 508, 0.99)];
      const base = await repeat(api.url, 'a', 503, 1);
      const head = await repeat(api.url, 'b', 504, 0.8);
      const qs = `base=${base}&head=${head}`;

      const first = await compare(api.url, qs);
      const noise = first.heads[0]!.noise;
      expect(noise.basis).toBe('history');
      expect([...noise.history!.runs].sort()).toEqual([...old].sort());
      expect(noise.method).toMatch(/from 1 base and 1 head run: .*3 earlier repeats of this service/);
      const asof = noise.history!.asof;
      const pinned = await compare(api.url, `${qs}&noise_asof=${asof}`);
      expect(verdicts(pinned)).toBe(verdicts(first));
      expect(pinned.heads[0]!.noise.newer ?? null).toBeNull();

      // More repeats of the service, noisier than the first: the newest basis changes…
      const more = [await repeat(api.url, 'r1', 505, 1), await repeat(api.url, 'r1', 506, 1.12), await repeat(api.url, 'r1', 507, 0.9)];
      const fresh = await compare(api.url, qs);
      expect([...fresh.heads[0]!.noise.history!.runs].sort()).toEqual([...old, ...more].sort());
      expect(fresh.heads[0]!.noise.history!.asof).toBeGreaterThan(asof);
      expect(verdicts(fresh)).not.toBe(verdicts(first));
      // …the pinned one does not, and says a newer one exists.
      const later = await compare(api.url, `${qs}&noise_asof=${asof}`);
      expect(verdicts(later)).toBe(verdicts(first));
      expect(later.heads[0]!.noise.newer).toEqual({ runs: 3, asof: fresh.heads[0]!.noise.history!.asof });
      const md = await (await fetch(`${api.url}/api/v1/compare.md?${qs}&noise_asof=${asof}&web=http://kb.example`)).text();
      expect(md).toContain(`A newer noise basis exists: 3 more repeats of this service`);
      expect(md).toContain(`noise_asof=${asof})`);

      expect(await api.stop()).toBe(0);
      api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
      const restarted = await compare(api.url, `${qs}&noise_asof=${asof}`);
      expect(verdicts(restarted)).toBe(verdicts(first));
      expect(restarted.heads[0]!.noise.newer).toEqual(later.heads[0]!.noise.newer);
    } finally {
      await api.stop();
    }
  }, 180_000);

  it('a noise_asof that is not an epoch time is a 400 naming the field', async () => {
    const api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
    try {
      const res = await fetch(`${api.url}/api/v1/compare?base=00000000-0000-4000-8000-000000000000&head=00000000-0000-4000-8000-000000000001&noise_asof=yesterday`);
      expect(res.status).toBe(400);
      expect(JSON.stringify(ApiError.parse(await res.json()))).toContain('noise_asof');
    } finally {
      await api.stop();
    }
  }, 60_000);
});
