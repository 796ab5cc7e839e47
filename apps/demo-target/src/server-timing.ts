/** The W3C Server-Timing value the demo target sends, in milliseconds with microsecond digits. */
export function formatServerTiming(queueMs: number, computeMs: number): string {
  return `queue;dur=${queueMs.toFixed(3)}, compute;dur=${computeMs.toFixed(3)}`;
}
