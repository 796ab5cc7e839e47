/** The W3C Server-Timing value the demo target sends, in milliseconds with microsecond digits. */
export function formatServerTiming(queueMs: number, computeMs: number): string {
  // eslint-disable-next-line no-restricted-syntax -- a header value (W3C Server-Timing), not a figure for people
  return `queue;dur=${queueMs.toFixed(3)}, compute;dur=${computeMs.toFixed(3)}`;
}
