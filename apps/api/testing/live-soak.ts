import { readFileSync } from 'node:fs';
import { endpointPath, ENDPOINTS } from '@kneeboard/contracts';
import { batchOf, createRun, postJson } from './http.ts';

/**
 * Live viewers during ingest, for the soak bench and its short test (issue 11.6): `viewers` streams
 * of GET /runs/{id}/live stay open while one agent posts a batch every `batchEveryMs`; the API
 * process's resident memory is sampled every `sampleEveryMs`. Loopback only; bounded by `durationMs`.
 */
export interface LiveSoakOptions {
  url: string;
  /** The API's process id, to read its resident memory from /proc. */
  pid: number;
  viewers: number;
  durationMs: number;
  sampleEveryMs: number;
  batchEvents?: number;
  batchEveryMs?: number;
  onSample?: (sample: RssSample) => void;
}

export interface RssSample {
  t_s: number;
  rss_mb: number;
  events: number;
  snapshots: number;
}

export interface LiveSoakResult {
  samples: RssSample[];
  events: number;
  snapshots: number;
  /** Viewers whose stream broke before the end (0 expected). */
  viewersLost: number;
}

export function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Number(kb) / 1024 : Number.NaN;
}

export async function runLiveSoak(o: LiveSoakOptions): Promise<LiveSoakResult> {
  const batchEvents = o.batchEvents ?? 2_000;
  const batchEveryMs = o.batchEveryMs ?? 250;
  const t0 = 1_800_000_000_000;
  const runId = await createRun(o.url, { service: 'soak', release: 'live' });
  const step = await postJson(`${o.url}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level: 1, started_at: t0, measure_from: t0, ended_at: t0 + 86_000_000 });
  if (step.status !== 200) throw new Error(`step refused: ${JSON.stringify(step.body)}`);

  const stop = new AbortController();
  let snapshots = 0;
  let viewersLost = 0;
  const viewer = async () => {
    try {
      const res = await fetch(`${o.url}${endpointPath(ENDPOINTS.runLive, { id: runId })}`, { signal: stop.signal });
      if (res.status !== 200 || !res.body) throw new Error(`live answered ${res.status}`);
      const decoder = new TextDecoder();
      // A reader loop, not `for await`: the web app type-checks this file with the DOM's ReadableStream, which has no async iterator.
      const reader = res.body.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        snapshots += (decoder.decode(chunk.value, { stream: true }).match(/event: snapshot/g) ?? []).length;
      }
      if (!stop.signal.aborted) viewersLost++;
    } catch (err) {
      if (!stop.signal.aborted) {
        viewersLost++;
        console.error(err);
      }
    }
  };
  const viewing = Array.from({ length: o.viewers }, viewer);

  let events = 0;
  let batches = 0;
  const started = Date.now();
  const samples: RssSample[] = [];
  const sample = () => {
    const s = { t_s: Math.round((Date.now() - started) / 1000), rss_mb: Math.round(rssMb(o.pid)), events, snapshots };
    samples.push(s);
    o.onSample?.(s);
  };
  sample();
  const sampler = setInterval(sample, o.sampleEveryMs);
  try {
    while (Date.now() - started < o.durationMs) {
      const at = t0 + batches * 1_000;
      const rows = Array.from({ length: batchEvents }, (_, i) => ({ level: 1, ts: at + (i * 1_000) / batchEvents, latency: 1 + (i % 97) }));
      const res = await postJson(`${o.url}${endpointPath(ENDPOINTS.postEvents, { id: runId })}`, batchOf(rows, `soak-${batches}`));
      if (res.status !== 200) throw new Error(`batch ${batches} refused: ${res.status} ${JSON.stringify(res.body)}`);
      batches++;
      events += batchEvents;
      await new Promise((r) => setTimeout(r, batchEveryMs));
    }
  } finally {
    clearInterval(sampler);
    sample();
    stop.abort();
    await Promise.all(viewing);
  }
  return { samples, events, snapshots, viewersLost };
}

/** Median rss of the samples in [from, to) of the run's duration (fractions), to compare warm with late. */
export function medianRss(samples: RssSample[], from: number, to: number): number {
  const end = samples.at(-1)?.t_s ?? 0;
  const picked = samples.filter((s) => s.t_s >= from * end && s.t_s < to * end).map((s) => s.rss_mb).sort((a, b) => a - b);
  return picked[Math.floor(picked.length / 2)] ?? Number.NaN;
}
