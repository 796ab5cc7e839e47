import type { TargetRequest } from '../load/target-client.ts';
import type { SweepConfig } from './config.ts';

/** The request a sweep sends (and its readiness checks poll with), from the sweep's options. */
export function targetRequestOf(cfg: SweepConfig): TargetRequest {
  const target = new URL(cfg.target);
  return {
    path: cfg.request.path ?? target.pathname + target.search,
    method: cfg.request.method,
    headers: { 'user-agent': 'kneeboard-agent', ...cfg.request.headers },
    body: cfg.request.body,
    timeoutMs: cfg.request.timeoutMs,
  };
}
