import type { RunDetail } from '@kneeboard/contracts';
import type { RunSeries } from '../../lib/compare-series.ts';
import { formatLevel, formatQps } from '@kneeboard/contracts/figures';
import { formatDuration, formatTimestamp } from '../../lib/format.ts';
import { RunSwatch } from '../compare/RunSwatch.tsx';

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** A compared run as it goes on paper: what ran where and when, its labels, and the note people left on it. */
export function RunCard({ series, detail }: { series: RunSeries; detail: RunDetail }) {
  const { run } = detail;
  const tags = Object.entries(run.tags);
  const utc = (ms: number) => `${formatTimestamp(ms, 'UTC')} UTC`;
  return (
    <article className="panel run-card" data-testid="review-run" data-run-id={run.id}>
      <header>
        <RunSwatch colour={series.colour} dashed={series.dashed} />
        <h3>
          <span className="tag mono">{series.memberLabel}</span> {run.name || <span className="muted">unnamed run</span>}
        </h3>
        {series.role === 'base' ? <span className="role-base">base</span> : null}
      </header>
      <dl className="run-card-meta">
        <Row label="Service">{run.service}</Row>
        <Row label="Release">{run.release}</Row>
        <Row label="Git sha">{run.git_sha ? <code>{run.git_sha.slice(0, 12)}</code> : '—'}</Row>
        <Row label="Agent">
          {run.agent_host ?? 'unknown host'}
          {run.agent_cores !== null ? ` · ${run.agent_cores} cores` : ''}
        </Row>
        <Row label="Swept">
          {run.parameter} ({run.load_model} loop), {detail.curve.length} levels
        </Row>
        <Row label="Started">{utc(run.created_at)}</Row>
        <Row label="Finished">{run.finished_at !== null ? `${utc(run.finished_at)} · ${formatDuration(run.finished_at - run.created_at)}` : run.status}</Row>
        <Row label="Peak · knee">
          {series.peak ? `${formatQps(series.peak.qps)} req/s at ${formatLevel(series.peak.level)}` : '—'} · {series.knee === null ? 'no knee' : `knee ${formatLevel(series.knee)}`}
        </Row>
        <Row label="Tags">{tags.length === 0 ? '—' : tags.map(([k, v]) => <span key={k} className="tag">{`${k}=${v}`}</span>)}</Row>
        <Row label="Labels">{(run.labels ?? []).length === 0 ? '—' : (run.labels ?? []).map((l) => <span key={l} className="chip">{l}</span>)}</Row>
      </dl>
      <div className="run-card-note" data-testid="review-note">
        <h4>Note</h4>
        {run.note ? <p>{run.note}</p> : <p className="muted">No note.</p>}
      </div>
    </article>
  );
}
