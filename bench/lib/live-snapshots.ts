import { RunDetail } from '@kneeboard/contracts';

/**
 * Reads a `GET /api/v1/runs/{id}/live` event stream to its end, handing each `snapshot` event's
 * RunDetail to `onSnapshot` with the time (epoch ms) its bytes arrived here.
 */
export async function readLiveSnapshots(body: ReadableStream<Uint8Array>, onSnapshot: (detail: RunDetail, arrivalMs: number) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const arrival = Date.now();
    buffer += decoder.decode(chunk.value, { stream: true });
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const data = /^event: snapshot\ndata: (.*)$/m.exec(buffer.slice(0, cut))?.[1];
      buffer = buffer.slice(cut + 2);
      if (data) onSnapshot(RunDetail.parse(JSON.parse(data)), arrival);
    }
  }
}

/**
 * The newest request a snapshot shows at each level still running: its window runs from the step's
 * measure_from to its newest request (`window_s`), epoch ms.
 */
export function newestShown(detail: RunDetail): Array<{ level: number; newest: number }> {
  return detail.curve.flatMap((point) => {
    const step = detail.steps.find((s) => s.level === point.level);
    return point.in_progress && point.requests > 0 && step ? [{ level: point.level, newest: step.measure_from + point.window_s * 1000 }] : [];
  });
}
