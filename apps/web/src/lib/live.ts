/**
 * The pure half of live updates: parsing stream messages and deciding what to keep. The hook in
 * components/run/useLiveRun.ts owns the EventSource and the polling timer.
 */
import { RunDetail, type EndpointAnalysis, type RunNameCount } from '@kneeboard/contracts';

/** `retrying`: the API stopped answering; the next try is at `retryAt` (backoff, shown as a countdown). */
export type LiveMode = 'static' | 'connecting' | 'stream' | 'polling' | 'retrying' | 'ended';

/** Parse a `snapshot` event's data or a polled body; null (with the reason logged by the caller) when invalid. */
export function parseRunDetail(data: unknown): { ok: true; detail: RunDetail } | { ok: false; error: string } {
  let value: unknown = data;
  if (typeof data === 'string') {
    try {
      value = JSON.parse(data);
    } catch (err) {
      return { ok: false, error: `not JSON: ${(err as Error).message}` };
    }
  }
  const parsed = RunDetail.safeParse(value);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { ok: true, detail: parsed.data };
}

/**
 * Whether an incoming detail should replace the one on screen. A run never goes back from finished
 * to running, and a level's sample count never shrinks, so an out-of-order (older) poll response
 * is ignored instead of making the chart flicker backwards.
 */
export function isNewer(current: RunDetail, incoming: RunDetail): boolean {
  if (incoming.run.id !== current.run.id) return false;
  if (current.run.status !== 'running' && incoming.run.status === 'running') return false;
  const total = (d: RunDetail) => d.curve.reduce((n, p) => n + p.requests, 0);
  if (incoming.run.status === current.run.status && incoming.curve.length < current.curve.length) return false;
  if (incoming.run.status === current.run.status && incoming.curve.length === current.curve.length && total(incoming) < total(current)) return false;
  return true;
}

/**
 * The detail to show for an accepted update, keeping what the update lacks of the endpoints. A
 * snapshot the API makes from its figures in memory carries no `names` (it repeats the last
 * `endpoints`; one without them is kept robustly too): the last names and analysis seen stay, so
 * the Endpoints summary neither flickers nor disappears between reads from storage. A run's names
 * and its analysis never go away once it has them.
 */
export function keepEndpoints(current: RunDetail, incoming: RunDetail): RunDetail {
  const names = incoming.names ?? current.names;
  const endpoints = incoming.endpoints ?? current.endpoints;
  if (names === incoming.names && endpoints === incoming.endpoints) return incoming;
  return { ...incoming, ...(names === undefined ? {} : { names }), ...(endpoints === undefined ? {} : { endpoints }) };
}

/** The run's names, or (a detail with an analysis but no names yet) the analysed endpoints' own counts. */
export function namesOf(detail: { names?: RunNameCount[]; endpoints?: EndpointAnalysis }): RunNameCount[] {
  return detail.names ?? detail.endpoints?.endpoints.map(({ name, requests }) => ({ name, requests })) ?? [];
}
