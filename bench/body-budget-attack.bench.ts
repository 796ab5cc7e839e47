/**
 * An honest sender's event rate with and without the header-only attack of issue 23: 17
 * connections that send `POST /api/v1/runs/{id}/events` headers announcing `Content-Length: 16 MiB`
 * and no body, re-opened as soon as the server cuts one, for the whole attack phase. The real API
 * process with its defaults (open on loopback, 256 MiB body budget, 5 s body start deadline),
 * embedded engine. Phases alternate clean / attack, so drift on the box lands on both; a phase
 * outlasts the start deadline, so each attacker is cut and comes back at least once in it.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/body-budget-attack.bench.ts [--rounds 3] [--seconds 8] [--batch 2000] [--senders 2]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServerProcess } from '@kneeboard/api/testing';
import { Pool } from 'undici';
import { loadAverage } from './lib/process-cpu.ts';
import { quantile, report } from './lib/report.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    batch: { type: 'string', default: '2000' },
    senders: { type: 'string', default: '2' },
  },
});
const ROUNDS = Number(values.rounds);
const PHASE_MS = Number(values.seconds) * 1000;
const BATCH = Number(values.batch);
const SENDERS = Number(values.senders);
const ATTACKERS = 17;
const T0 = Date.now() - 3_600_000;

let batchNo = 0;
function body(): string {
  const b = batchNo++;
  const n = BATCH;
  const level = new Array<number>(n).fill(1);
  const ts = Array.from({ length: n }, (_, i) => T0 + (b * n + i) * 0.05);
  const latency = Array.from({ length: n }, (_, i) => 5 + ((i * 7919) % 1000) / 50);
  return JSON.stringify({ batch_id: `honest-${b}`, agent_id: 'bench', level, ts_ms: ts, latency_ms: latency, compute_ms: new Array(n).fill(null), queue_ms: new Array(n).fill(null), status: new Array(n).fill(200) });
}

/** Keeps `count` header-only requests open against `path` until stopped; counts how often the server cut one. */
function attack(url: string, path: string, count: number): { stop(): void; cut: () => number } {
  const { hostname, port } = new URL(url);
  let stopped = false;
  let cut = 0;
  const sockets = new Set<Socket>();
  const open = () => {
    if (stopped) return;
    const s = connect(Number(port), hostname);
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => {
      sockets.delete(s);
      if (stopped) return;
      cut++;
      open();
    });
    s.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${16 * 1024 * 1024}\r\n\r\n`);
  };
  for (let i = 0; i < count; i++) open();
  return {
    stop() {
      stopped = true;
      for (const s of sockets) s.destroy();
    },
    cut: () => cut,
  };
}

async function honestPhase(pool: Pool, runId: string, ms: number): Promise<{ events: number; refused: number; statuses: Record<string, number> }> {
  const end = Date.now() + ms;
  let events = 0;
  let refused = 0;
  const statuses: Record<string, number> = {};
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (Date.now() < end) {
        const res = await pool.request({ method: 'POST', path: `/api/v1/runs/${runId}/events`, headers: { 'content-type': 'application/json' }, body: body() });
        await res.body.dump();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode === 200) events += BATCH;
        else refused++;
      }
    }),
  );
  return { events, refused, statuses };
}

const dataDir = mkdtempSync(join(tmpdir(), 'kb-bench-budget-'));
const api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir }, 60_000);
const pool = new Pool(api.url, { connections: SENDERS });
try {
  const create = async (service: string) => {
    const res = await fetch(`${api.url}/api/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ service, release: 'v1' }) });
    return ((await res.json()) as { id: string }).id;
  };
  const honestRun = await create('honest');
  const victimRun = await create('victim');
  // Warm-up: the first batches pay for the engine's first parts and JIT.
  await honestPhase(pool, honestRun, 2000);

  const rows: Array<Record<string, string | number>> = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const phase of ['clean', 'attack'] as const) {
      const attackers = phase === 'attack' ? attack(api.url, `/api/v1/runs/${victimRun}/events`, ATTACKERS) : null;
      const started = Date.now();
      const r = await honestPhase(pool, honestRun, PHASE_MS);
      const seconds = (Date.now() - started) / 1000;
      attackers?.stop();
      rows.push({ round, phase, events_per_s: Math.round(r.events / seconds), refused: r.refused, statuses: JSON.stringify(r.statuses), attacker_cuts: attackers?.cut() ?? 0, load_avg: loadAverage() });
    }
  }
  const rate = (phase: string) => rows.filter((r) => r.phase === phase).map((r) => r.events_per_s as number);
  const ratio = quantile(rate('attack'), 0.5) / quantile(rate('clean'), 0.5);
  report('body-budget-attack', rows, { attack_over_clean_median: ratio, senders: SENDERS, batch: BATCH, attackers: ATTACKERS, phase_s: PHASE_MS / 1000 });
  console.log(`\nhonest rate under attack ÷ clean (medians): ${ratio.toFixed(3)}`);
} finally {
  await pool.close();
  await api.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
