import type { RunDetail } from '@kneeboard/contracts';
import type { ReactNode } from 'react';
import { formatLevel, formatQps } from '@kneeboard/contracts/figures';
import { formatCount } from '../../lib/format.ts';
import { peakQps } from '../../lib/curve-series.ts';
import { ListLink } from '../common/ListLink.tsx';
import { StatusBadge } from '../common/StatusBadge.tsx';
import { Elapsed, Time } from '../common/Time.tsx';

function Item({ label, children, wide = false }: { label: string; children: ReactNode; wide?: boolean }) {
  return (
    <div className={wide ? 'meta-item meta-wide' : 'meta-item'}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Where the run sits, its name and status, and the verdict: the top of the page, kept short so the charts are on the first screen. */
export function RunHeader({ detail, live, summary, readOnly = false }: { detail: RunDetail; live: ReactNode; summary?: ReactNode; readOnly?: boolean }) {
  const { run } = detail;
  return (
    <header className="run-header">
      <div className="crumbs" data-testid="run-crumbs">
        <ListLink href="/" readOnly={readOnly}>
          Runs
        </ListLink>{' '}
        /{' '}
        <ListLink href={`/services/${encodeURIComponent(run.service)}`} readOnly={readOnly}>
          {run.service}
        </ListLink>{' '}
        /{' '}
        <ListLink href={`/?service=${encodeURIComponent(run.service)}&release=${encodeURIComponent(run.release)}`} readOnly={readOnly}>
          {run.release}
        </ListLink>
      </div>
      <div className="run-title">
        <h1 data-testid="run-title">
          {run.service} <span className="muted">·</span> {run.name || <span className="muted">unnamed run</span>}
        </h1>
        <StatusBadge status={run.status} />
        {live}
      </div>
      {summary}
    </header>
  );
}

/**
 * Who, what and when: everything needed to tell two runs of the same service apart. Drawn under
 * the charts (a live run's curve is what people open the page for), above the table.
 */
export function RunMeta({ detail, readOnly = false }: { detail: RunDetail; readOnly?: boolean }) {
  const { run, curve } = detail;
  const tags = Object.entries(run.tags);
  const peak = peakQps(curve);
  const requests = curve.reduce((n, p) => n + p.requests, 0);
  const errors = curve.reduce((n, p) => n + p.errors, 0);
  const first = curve[0];
  const last = curve[curve.length - 1];
  return (
      <dl className="meta panel" data-testid="run-meta">
        <Item label="Service">
          <ListLink href={`/services/${encodeURIComponent(run.service)}`} title="this service’s runs by release" readOnly={readOnly}>
            {run.service}
          </ListLink>
        </Item>
        <Item label="Release">
          <span className="tag mono">{run.release}</span>
        </Item>
        <Item label="Git sha">{run.git_sha ? <code title={run.git_sha}>{run.git_sha.slice(0, 12)}</code> : <span className="muted">—</span>}</Item>
        <Item label="Swept parameter">
          {run.parameter} <span className="muted">({run.load_model} loop)</span>
        </Item>
        <Item label="Agent">
          {run.agent_host ?? <span className="muted">unknown host</span>}
          {run.agent_cores !== null ? <span className="muted"> · {run.agent_cores} cores</span> : null}
        </Item>
        <Item label="Started">
          <Time ms={run.created_at} relative />
        </Item>
        <Item label="Finished">{run.finished_at !== null ? <Time ms={run.finished_at} /> : <span className="muted">{run.status === 'running' ? 'still running' : '—'}</span>}</Item>
        <Item label="Duration">
          {run.finished_at === null && run.status !== 'running' ? <span className="muted">—</span> : <Elapsed from={run.created_at} to={run.finished_at} />}
        </Item>
        <Item label="Levels">
          <span data-testid="levels-count">{curve.length}</span>
          {first && last ? (
            <span className="muted">
              {' '}
              ({formatLevel(first.level)}–{formatLevel(last.level)})
            </span>
          ) : null}
        </Item>
        <Item label="Peak throughput">
          {peak ? (
            <>
              {formatQps(peak.qps)} req/s{' '}
              <span className="muted">
                at {run.parameter} {formatLevel(peak.level)}
              </span>
            </>
          ) : (
            <span className="muted">—</span>
          )}
        </Item>
        <Item label="Requests">
          {formatCount(requests)}
          {errors > 0 ? <span className="errors"> · {formatCount(errors)} errors</span> : <span className="muted"> · no errors</span>}
        </Item>
        <Item label="Tags" wide>
          {tags.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            tags.map(([k, v]) => (
              <span key={k} className="tag">
                {k}={v}
              </span>
            ))
          )}
        </Item>
      </dl>
  );
}
