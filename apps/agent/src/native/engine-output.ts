import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One read takes up to this much of what the engine wrote: everything that piled up while the CLI was busy. */
const READ_BUFFER_BYTES = 1024 * 1024;

/**
 * Where the native engine writes its frames: its stdout is one end of a connected Unix stream
 * socket, and this process reads the other end with net's `onread` option — every read lands in
 * one buffer made here, handed to `onBytes` and then reused. A child's stdout pipe (the fallback)
 * costs a fresh 64 KiB Buffer and a pass through the readable-stream machinery per wake-up, and the
 * CLI shares the engine's core (measured in bench/agent-cli-cpu.bench.ts). `onBytes` must copy
 * what it keeps: FrameReader.push does.
 *
 * The socket is made by listening on a path inside a fresh private directory (mode 0700: no other
 * user can connect first), connecting, and removing both; the listening socket is closed after its
 * one connection.
 */
export interface EngineOutput {
  /** For spawn's stdio[1]: the engine's end. Destroy it here once spawned (the engine holds a copy). */
  engineEnd: Socket;
  /** Settles when the engine's end is closed by every holder and all it wrote was read (or on a read error, given). */
  closed: Promise<Error | undefined>;
  /** Stops reading (the step failed). */
  destroy(): void;
}

/** The socket pair, or undefined where it cannot be made (the caller then reads a plain pipe). */
export async function openEngineOutput(onBytes: (bytes: Uint8Array) => void): Promise<EngineOutput | undefined> {
  let dir: string | undefined;
  const server = createServer();
  try {
    dir = mkdtempSync(join(tmpdir(), 'kb-'));
    const path = join(dir, 'engine.sock');
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, resolve);
    });
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const buffer = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
    const reader = connect({
      path,
      onread: {
        buffer,
        callback: (n: number, buf: Uint8Array) => {
          onBytes(buf.subarray(0, n));
          return true; // keep reading
        },
      },
    });
    const closed = new Promise<Error | undefined>((resolve) => {
      let error: Error | undefined;
      reader.once('error', (err) => (error = err));
      reader.once('close', () => resolve(error));
    });
    // Nothing goes to the engine this way (its commands go to its stdin). The engine's end closing
    // (the engine gone, and this process's copy destroyed) ends the reader, which then closes.
    await new Promise<void>((resolve, reject) => {
      reader.once('connect', resolve);
      reader.once('error', reject);
    });
    const engineEnd = await accepted;
    return { engineEnd, closed, destroy: () => reader.destroy() };
  } catch {
    return undefined;
  } finally {
    server.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}
