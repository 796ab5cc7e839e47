import { connect, type Socket } from 'node:net';

export interface RawRequest {
  /** Everything the server sent, once it closed the connection (or we did). */
  answer: Promise<string>;
  socket: Socket;
}

/**
 * A request written by hand on its own connection: the request line, these headers, and `body`
 * (possibly much less than its Content-Length says), then silence — what a stalling client sends.
 */
export function rawRequest(url: string, head: string, headers: Record<string, string | number>, body = ''): RawRequest {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('close', () => resolve(text));
    // A reset after the answer is still an answer; the test reads what arrived.
    socket.on('error', () => undefined);
  });
  const lines = Object.entries({ host: `${hostname}:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}`);
  socket.write(`${head} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
  return { answer, socket };
}

/** The status code and JSON body of a raw HTTP/1.1 answer. */
export function parseAnswer(raw: string): { status: number; body: { message?: string; field?: string } | null } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
  const start = raw.indexOf('\r\n\r\n');
  const text = start < 0 ? '' : raw.slice(start + 4);
  const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
  try {
    return { status, body: json === '' ? null : (JSON.parse(json) as { message?: string; field?: string }) };
  } catch {
    return { status, body: null };
  }
}
