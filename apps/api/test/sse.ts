import { request } from 'node:http';

export interface SseEvent {
  event: string;
  data: string;
}

/** Reads Server-Sent Events from a real HTTP response, one parsed event at a time. */
export async function* readEvents(res: Response): AsyncGenerator<SseEvent> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) yield { event, data };
    }
  }
}

export interface OpenStream {
  status: number;
  body: string;
  retryAfter: string | undefined;
  close(): void;
}

/**
 * Opens `url` from a given loopback address (127.0.0.x are distinct clients to the API) and
 * answers once the status is known; a 200 stream stays open until close().
 */
export function openStream(url: string, localAddress = '127.0.0.1'): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress }, (res) => {
      const status = res.statusCode ?? 0;
      const close = () => req.destroy();
      const retryAfter = res.headers['retry-after'];
      if (status === 200) {
        res.resume();
        resolve({ status, body: '', retryAfter, close });
        return;
      }
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status, body, retryAfter, close }));
    });
    req.on('error', reject);
    req.end();
  });
}
