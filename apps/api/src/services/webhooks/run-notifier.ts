import { getRun, listRuns, listWebhooks, notifiedRuns, type Db, type WebhookRow } from '@kneeboard/clickhouse';
import { formatChange, formatRunGroupRef, MAX_RUNS_PER_GROUP, type Run, type WebhookEvent, type WebhookNotification } from '@kneeboard/contracts';
import type { CompareGuard } from '../compare-guard.ts';
import { loadServiceHistory } from '../service-history.ts';
import type { WebhookSender } from './webhook-sender.ts';

export interface RunNotifierOptions {
  /** The web app's address, for the permalinks a notification carries. */
  webUrl: string;
  /** How long after a finish the run is judged: the last batches of a spooling agent land first. */
  settleMs: number;
}

const RUNS_READ = 200;
const FEATURE_NAMES: Record<string, string> = { peak_qps: 'Peak throughput', knee_level: 'The knee', p99_at_base_knee_ms: 'p99 at the base knee', capacity_qps: 'Capacity under the SLO' };
const METRIC_NAMES: Record<string, string> = { qps: 'QPS', p50_ms: 'p50', p99_ms: 'p99' };

const pct = (ratio: number | null) => (ratio === null ? null : Math.round(ratio * 10_000) / 100);

/**
 * Tells a service's webhooks when one of its runs finishes worse than the release before it, or
 * when its history shows a change point it had not told of. Judged once per finished run, in the background, one run
 * at a time; a run already notified (per webhook and event, from the delivery log) is not told
 * of again — a re-finish, or another API replica that judged it first.
 */
export class RunNotifier {
  #chain: Promise<void> = Promise.resolve();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly db: Db,
    private readonly comparisons: CompareGuard,
    private readonly sender: WebhookSender,
    private readonly options: RunNotifierOptions,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** A run was finished: judge it once it settles. */
  runFinished(run: Run): void {
    if (run.status !== 'finished') return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#chain = this.#chain.then(async () => void (await this.judge(run.id))).catch(this.onError);
    }, this.options.settleMs);
    timer.unref();
    this.#timers.add(timer);
  }

  /** Every notification the run calls for, sent (the first attempt awaited, retries in the background). */
  async judge(runId: string): Promise<WebhookNotification[]> {
    const run = await getRun(this.db, runId);
    if (!run || run.status !== 'finished') return [];
    const hooks = await listWebhooks(this.db, run.service);
    if (hooks.length === 0) return [];
    const wanted = (event: WebhookEvent) => hooks.filter((h) => h.events.includes(event));
    const sent: WebhookNotification[] = [];
    if (wanted('regression').length > 0) {
      const n = await this.#regression(run);
      if (n) sent.push(...(await this.#send(wanted('regression'), n, n.figures)));
    }
    if (wanted('change_point').length > 0) {
      for (const n of await this.#changePoints(run)) sent.push(...(await this.#send(wanted('change_point'), n, n.figures)));
    }
    return sent;
  }

  async #send(hooks: WebhookRow[], n: WebhookNotification, figures: WebhookNotification['figures']): Promise<WebhookNotification[]> {
    const biggest = Math.max(0, ...figures.map((f) => Math.abs(f.change_pct)));
    const out: WebhookNotification[] = [];
    for (const hook of hooks) {
      if (biggest < hook.threshold_pct) continue;
      if (n.run_id && (await notifiedRuns(this.db, hook.id, n.event, [n.run_id])).has(n.run_id)) continue;
      await this.sender.deliver(hook, n, { retry: true });
      out.push(n);
    }
    return out;
  }

  /** The run's release against the release before it (same load model and parameter), as the comparison page would show it. */
  async #regression(run: Run): Promise<WebhookNotification | null> {
    const comparable = (await listRuns(this.db, { service: run.service, status: 'finished', limit: RUNS_READ })).filter(
      (r) => r.load_model === run.load_model && r.parameter === run.parameter,
    );
    const mine = comparable.filter((r) => r.release === run.release && r.created_at <= run.created_at);
    const firstOfMine = Math.min(...mine.map((r) => r.created_at));
    const before = comparable.find((r) => r.release !== run.release && r.created_at < firstOfMine);
    if (!before) return null;
    const base = comparable.filter((r) => r.release === before.release).slice(0, MAX_RUNS_PER_GROUP);
    const head = mine.slice(0, MAX_RUNS_PER_GROUP);
    const { result } = await this.comparisons.compare({ base: base.map((r) => r.id), head: [head.map((r) => r.id)], min_effect: 0.05 });
    const overall = result.report.heads[0]?.overall;
    if (!overall || overall.verdict !== 'regression') return null;
    const figures = (overall.regressions ?? [])
      .filter((r) => r.change !== null)
      .map((r) => ({ name: `${METRIC_NAMES[r.metric] ?? r.metric} at ${run.parameter} ${r.level}`, change_pct: pct(r.change)!, low_pct: pct(r.ci_low), high_pct: pct(r.ci_high) }));
    const qs = new URLSearchParams([
      ['base', formatRunGroupRef({ kind: 'release', service: run.service, release: before.release })],
      ['head', formatRunGroupRef({ kind: 'release', service: run.service, release: run.release })],
    ]);
    return {
      event: 'regression',
      service: run.service,
      release: run.release,
      run_id: run.id,
      summary: `${overall.summary} (${run.release} against ${before.release})`,
      figures,
      url: `${this.options.webUrl}/compare?${qs}`,
      sent_at: Date.now(),
    };
  }

  /**
   * Change points in the series the run belongs to, one notification per release where features
   * changed. A change point is often found only releases after it happened (E-divisive needs
   * points on both sides), so any change point counts, not only one at this run's release; its
   * release's first run is the notification's run, which is how the log tells it was sent before.
   */
  async #changePoints(run: Run): Promise<WebhookNotification[]> {
    const history = await loadServiceHistory(this.db, run.service);
    const out: WebhookNotification[] = [];
    for (const s of history?.series ?? []) {
      if (!s.series.runs.includes(run.id)) continue;
      const byRelease = new Map<string, typeof s.change_points>();
      for (const cp of s.change_points) byRelease.set(cp.release, [...(byRelease.get(cp.release) ?? []), cp]);
      for (const [release, cps] of byRelease) {
        const first = cps[0]!;
        const runId = s.points.releases[first.release_index]?.runs[0]?.run_id ?? null;
        const qs = new URLSearchParams([
          ['base', formatRunGroupRef({ kind: 'release', service: run.service, release: first.previous_release })],
          ['head', formatRunGroupRef({ kind: 'release', service: run.service, release })],
        ]);
        const changed = cps.map((cp) => `${FEATURE_NAMES[cp.feature] ?? cp.feature} ${formatChange(cp.ratio - 1)}`).join(', ');
        out.push({
          event: 'change_point',
          service: run.service,
          release,
          run_id: runId,
          summary: `Change point at ${release} (after ${first.previous_release}) in series ${s.series.name}: ${changed}${release === run.release ? '' : ` — seen with ${run.release}'s runs`}`,
          figures: cps.map((cp) => ({ name: FEATURE_NAMES[cp.feature] ?? cp.feature, change_pct: pct(cp.ratio - 1)!, low_pct: pct(cp.ratio_low - 1), high_pct: pct(cp.ratio_high - 1) })),
          url: `${this.options.webUrl}/compare?${qs}`,
          sent_at: Date.now(),
        });
      }
    }
    return out;
  }

  /** Resolves once every finish seen so far is judged and its first attempts made (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#timers.size > 0) await new Promise((r) => setTimeout(r, 10));
    await this.#chain;
  }

  close(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}
