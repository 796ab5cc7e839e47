import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_BINARY } from '../src/native/engine-binary.ts';
import { openEngineOutput } from '../src/native/engine-output.ts';
import { startNativeStep } from '../src/native/native-step.ts';
import type { StepColumns } from '../src/sweep/step-driver.ts';

/**
 * Every response reaches the step exactly once, through the engine's socket (read into one reused
 * buffer) and through the plain-pipe fallback: the server numbers its responses in Server-Timing
 * (`compute;dur=<n>`), and the step's events must carry distinct numbers, all served, and miss at
 * most the requests still on the wire when the step ended.
 */
const LEVEL = 8;
let server: Server;
let served = 0;
let origin: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    served += 1;
    res.writeHead(200, { 'server-timing': `compute;dur=${served}`, 'content-type': 'text/plain' });
    res.end('ok\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => server?.close());

/** One closed-loop step of 400 ms at LEVEL; the response numbers its events carried. */
async function step(): Promise<{ numbers: number[]; served: number }> {
  served = 0;
  const numbers: number[] = [];
  const args = ['--url', origin, '--path', '/', '--method', 'GET', '--timeout-ms', '10000', '--compute-metric', 'compute', '--queue-metric', 'queue'];
  const driver = await startNativeStep(
    {
      binary: DEFAULT_ENGINE_BINARY,
      request: { args, dispose: () => {} },
      plan: { loadModel: 'closed', load: LEVEL, warmupMs: 0, durationMs: 400 },
      arrivals: 'uniform',
      thinkTimeMs: 0,
      maxConnections: LEVEL,
      threads: 1,
      lateToleranceMs: 10,
      stopGraceMs: 5_000,
    },
    () =>
      Object.assign(() => expect.fail('the native step hands over columns'), {
        columns: (c: StepColumns) => {
          for (let i = 0; i < c.length; i++) if (c.kind[i] !== c.cancelled) numbers.push(c.compute[i]!);
        },
      }),
  );
  await driver.done;
  return { numbers, served };
}

function expectExactlyOnce({ numbers, served: n }: { numbers: number[]; served: number }): void {
  // Some events at all (frames leave every 256 events or 50 ms: a 400 ms step sends several however slow the box).
  expect(numbers.length).toBeGreaterThan(0);
  expect(new Set(numbers).size).toBe(numbers.length);
  expect(numbers.every((x) => Number.isInteger(x) && x >= 1 && x <= n)).toBe(true);
  expect(numbers.length).toBeGreaterThanOrEqual(n - LEVEL);
}

describe('the native engine output, end to end', () => {
  it('through the socket: every response once', async () => {
    expectExactlyOnce(await step());
  });

  it('through the pipe where no socket can be made: every response once', async () => {
    const before = process.env.TMPDIR;
    // A temp directory that does not exist: the socket's private directory cannot be made.
    process.env.TMPDIR = join(tmpdir(), `kb-no-such-dir-${process.pid}`, 'deeper');
    try {
      expect(await openEngineOutput(() => {})).toBeUndefined();
      expectExactlyOnce(await step());
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });
});
