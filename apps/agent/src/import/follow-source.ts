import { open, type FileHandle } from 'node:fs/promises';
import { addAbortSignal } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHUNK_BYTES } from './byte-lines.ts';

/** How often a followed file is checked for new bytes once it stops growing. */
const POLL_MS = 100;

/**
 * The bytes of a stream being written: stdin (`-`) until it ends, or a file read as it grows —
 * like `tail -f`, from its first byte — until it has not grown for `idleMs` (the tool is done).
 * A file not there yet is waited for, as long. Either ends early, cleanly, when `signal` aborts.
 */
export function followSource(path: string, idleMs: number, signal: AbortSignal | undefined): AsyncIterable<Buffer> {
  return path === '-' ? stdinChunks(signal) : tailFile(path, idleMs, signal);
}

async function* stdinChunks(signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  const stdin = signal === undefined ? process.stdin : addAbortSignal(signal, process.stdin);
  try {
    for await (const chunk of stdin as AsyncIterable<Buffer>) yield chunk;
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
}

async function* tailFile(path: string, idleMs: number, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  let idleSince = Date.now();
  const nap = () => sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
  let fh: FileHandle | undefined;
  while (fh === undefined) {
    try {
      fh = await open(path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || Date.now() - idleSince >= idleMs || signal?.aborted) throw err;
      await nap();
    }
  }
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let position = 0;
    while (!signal?.aborted) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, position);
      if (bytesRead > 0) {
        position += bytesRead;
        idleSince = Date.now();
        yield Buffer.from(buf.subarray(0, bytesRead));
      } else if (Date.now() - idleSince >= idleMs) {
        return;
      } else {
        await nap();
      }
    }
  } finally {
    await fh.close();
  }
}
