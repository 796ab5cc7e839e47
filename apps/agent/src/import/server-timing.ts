import { parseServerTiming } from '@kneeboard/agent-sdk';
import { serverTimeLimit } from '@kneeboard/event-wire';
import type { Parsed } from './records.ts';

/**
 * Sets a request's compute and queue time (its latency already set) from its response's
 * Server-Timing header values, read by the same parser a sweep uses on live responses (the SDK's:
 * several entries and header lines, quoted params, `queue`/`compute`); NaN for what the header
 * does not give. A time that cannot be a part of the request (longer than its latency, beyond the
 * API's tolerance) is dropped, not the request: the API refuses a whole batch over one such value.
 */
export function setServerTiming(out: Parsed, header: string | string[] | undefined): void {
  const t = parseServerTiming(header);
  const limit = serverTimeLimit(out.latencyMs);
  out.computeMs = t.computeMs !== null && t.computeMs <= limit ? t.computeMs : Number.NaN;
  out.queueMs = t.queueMs !== null && t.queueMs <= limit ? t.queueMs : Number.NaN;
}

/** The request carries no Server-Timing (none recorded, or the tool keeps no headers). */
export function clearServerTiming(out: Parsed): void {
  out.computeMs = Number.NaN;
  out.queueMs = Number.NaN;
}

/**
 * The Server-Timing values in a raw header block (`Name: value` lines, CRLF or LF, as Go's
 * http.Header.Write and JMeter's responseHeader write them); undefined when there is none.
 */
export function serverTimingInHeaderBlock(block: string): string[] | undefined {
  let values: string[] | undefined;
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    if (colon !== 13 || line.slice(0, 13).toLowerCase() !== 'server-timing') continue;
    (values ??= []).push(line.slice(colon + 1).trim());
  }
  return values;
}
