import { spawn } from 'node:child_process';
import { z } from 'zod';
import { SweepError } from '../sweep/sweep-error.ts';
import { performance } from 'node:perf_hooks';
import type { AgentUsage } from '../load/agent-monitor.ts';
import { frameErrorKind } from '../load/error-kind.ts';
import { MeasurementWindow } from '../sweep/measurement-window.ts';
import type { BeginStep, DriverResult, StepDriver, StepPlan, StepSink } from '../sweep/step-driver.ts';
import { openEngineOutput } from './engine-output.ts';
import { FrameReader, KIND_CANCELLED, type EventColumnsFrame } from './frames.ts';
import type { NativeRequest } from './native-request.ts';

/** The protocol version this CLI speaks; the engine says its own in `hello`. */
export const ENGINE_PROTOCOL = 4;

const Hello = z.object({ type: z.literal('hello'), protocol: z.number(), t0_epoch_ms: z.number(), threads: z.number(), error_kinds: z.array(z.string()) });
const Progress = z.object({ type: z.literal('progress'), in_flight: z.number() });
const End = z.object({
  type: z.literal('end'),
  stopped_at_ms: z.number().nullable(),
  open: z.object({ intended: z.number(), sent: z.number(), late: z.number(), missed: z.number() }).nullable(),
  usage: z.object({ cpu_cores: z.number().nullable(), loop_utilization: z.number().nullable(), loop_delay_p99_ms: z.number().nullable() }).nullable(),
  connections: z.number().nullable(),
  // Added within protocol 4: connections opened over the step; an engine built before it sends none.
  opened: z.number().int().nonnegative().optional(),
  // Protocol 2: the step's TLS handshakes, null for http://.
  tls: z.object({ handshakes: z.number(), handshake_ms_p50: z.number().nullable(), handshake_ms_p99: z.number().nullable(), handshake_ms_max: z.number().nullable() }).nullable(),
});
const Control = z.discriminatedUnion('type', [Hello, Progress, End]);

export interface NativeStepOptions {
  binary: string;
  request: NativeRequest;
  plan: StepPlan;
  arrivals: 'uniform' | 'poisson';
  thinkTimeMs: number;
  maxConnections: number;
  threads: number | undefined;
  lateToleranceMs: number;
  /** After stop(), requests in flight get this long before `cancel`. */
  stopGraceMs: number;
}

/**
 * One step on the native engine: spawns it with the step's flags, decodes its frames, hands each
 * request to the step as a StepEvent, and at the end turns its counts into the same DriverResult
 * the Node engine gives. The on-the-wire mean is integrated here, exactly, from each request's
 * send and end times (cancelled requests included) over the window.
 */
export async function startNativeStep(o: NativeStepOptions, begin: BeginStep): Promise<StepDriver> {
  const { plan } = o;
  const args = [
    ...o.request.args,
    '--mode',
    plan.loadModel,
    '--load',
    String(plan.load),
    '--warmup-ms',
    String(plan.warmupMs),
    '--duration-ms',
    String(plan.durationMs),
    '--max-connections',
    String(o.maxConnections),
    '--arrivals',
    o.arrivals,
    '--think-time-ms',
    String(o.thinkTimeMs),
    '--late-tolerance-ms',
    String(o.lateToleranceMs),
  ];
  if (o.threads !== undefined) args.push('--threads', String(o.threads));

  // The engine's frames: a socket read into one reused buffer (engine-output.ts), or its stdout pipe.
  let onBytes: (bytes: Uint8Array) => void = () => {};
  const output = await openEngineOutput((bytes) => onBytes(bytes));
  // Its own process group: a terminal's Ctrl-C reaches the CLI, which stops the engine in order.
  const child = spawn(o.binary, args, { stdio: ['pipe', output?.engineEnd ?? 'pipe', 'pipe'], detached: true });
  // The engine holds its own copy: the output ends when the engine's closes.
  output?.engineEnd.destroy();
  const reader = new FrameReader();
  const windowFrom = plan.warmupMs;
  let windowTo = plan.warmupMs + plan.durationMs;
  let inFlight = 0;
  let wireArea = 0;
  let t0 = 0;
  let kinds: string[] = [];
  let sink: StepSink | undefined;
  let end: z.infer<typeof End> | undefined;
  let stderr = '';
  let failure: Error | undefined;
  // Armed at hello, when the engine's t0 fixes the window.
  let measurement: MeasurementWindow | undefined;
  // The CLI's own CPU over the window, added to the engine's. Only the CPU: the engine reports its
  // loop's figures itself, and the Node monitor's 10 ms loop-delay timer would wake the CLI 100
  // times a second on the engine's core for a figure nothing reads.
  let cliCpu0: NodeJS.CpuUsage | undefined;
  let cliWall0 = 0;
  let cliCpuCores: number | null = null;

  return new Promise<StepDriver>((resolveStarted, rejectStarted) => {
    let resolveDone!: (r: DriverResult) => void;
    let rejectDone!: (e: Error) => void;
    const done = new Promise<DriverResult>((res, rej) => {
      resolveDone = res;
      rejectDone = rej;
    });
    const driver: StepDriver = {
      inFlight: () => inFlight,
      stop: () => measurement!.stop(),
      done,
    };
    const send = (line: string) => {
      if (child.stdin?.writable) child.stdin.write(`${line}\n`);
    };
    const fail = (message: string) => {
      failure ??= new SweepError('engine-failed', message);
      child.kill('SIGKILL');
    };

    const onEvents = (f: EventColumnsFrame) => {
      // Time on the wire inside the window: the exact integral of the in-flight count.
      for (let i = 0; i < f.length; i++) {
        const sent = f.sent[i]!;
        if (sent !== sent) continue; // NaN: never sent
        const a = Math.max(sent, windowFrom);
        const b = Math.min(f.ended[i]!, windowTo);
        if (b > a) wireArea += b - a;
      }
      const columns = sink!.columns;
      if (columns) {
        // The step takes the frame's columns as they are: no object per request.
        columns({ length: f.length, intended: f.intended, ended: f.ended, compute: f.compute, queue: f.queue, status: f.status, kind: f.errorKind, kinds, cancelled: KIND_CANCELLED, unparseable: f.unparseable, request: f.request });
        return;
      }
      for (let i = 0; i < f.length; i++) {
        const kind = f.errorKind[i]!;
        if (kind === KIND_CANCELLED) continue;
        const status = f.status[i]!;
        const compute = f.compute[i]!;
        const queue = f.queue[i]!;
        const ended = f.ended[i]!;
        sink!({
          tsMs: t0 + ended,
          latencyMs: ended - f.intended[i]!,
          computeMs: compute === compute ? compute : null,
          queueMs: queue === queue ? queue : null,
          status,
          errorKind: frameErrorKind(kind, kinds, status),
          unparseable: f.unparseable[i]!,
          request: f.request[i]!,
        });
      }
    };

    onBytes = (chunk: Uint8Array) => {
      if (failure) return;
      try {
        for (const frame of reader.push(chunk)) {
          if (frame.kind === 'events') {
            if (!sink) throw new Error('events before hello');
            onEvents(frame);
            continue;
          }
          const msg = Control.parse(frame.value);
          if (msg.type === 'hello') {
            if (msg.protocol !== ENGINE_PROTOCOL) throw new Error(`protocol ${msg.protocol}, this CLI speaks ${ENGINE_PROTOCOL}: rebuild it (cargo build --release)`);
            t0 = msg.t0_epoch_ms;
            kinds = msg.error_kinds;
            sink = begin(t0);
            // The CLI's CPU counts too: its window opens and closes with the engine's.
            measurement = new MeasurementWindow(
              { measureFrom: t0 + windowFrom, endsAt: t0 + windowTo },
              {
                now: Date.now,
                onOpen: () => {
                  cliCpu0 = process.cpuUsage();
                  cliWall0 = performance.now();
                },
                onClose: () => {
                  if (cliCpu0 === undefined) return;
                  const cpu = process.cpuUsage(cliCpu0);
                  const wallMs = performance.now() - cliWall0;
                  cliCpuCores = wallMs > 0 ? (cpu.user + cpu.system) / 1000 / wallMs : 0;
                  cliCpu0 = undefined;
                },
                onStop: () => send('stop'),
                grace: { ms: o.stopGraceMs, onGraceOver: () => send('cancel') },
              },
            );
            resolveStarted(driver);
          } else if (msg.type === 'progress') {
            inFlight = msg.in_flight;
          } else {
            end = msg;
            if (msg.stopped_at_ms !== null) windowTo = Math.min(windowTo, msg.stopped_at_ms);
          }
        }
      } catch (err) {
        fail(`the native engine's output could not be read: ${(err as Error).message}`);
      }
    };
    if (output === undefined) child.stdout!.on('data', onBytes);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4_000);
    });
    child.on('error', (err) => fail(`could not start the native engine ${o.binary}: ${err.message}`));
    // The end: the engine exited (its stdin and stderr closed) and all it wrote was read.
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
    void Promise.all([exited, output?.closed]).then(([[code, signal], readError]) => {
      if (readError) failure ??= new SweepError('engine-failed', `the native engine's output could not be read: ${readError.message}`);
      measurement?.dispose();
      measurement?.close();
      if (!failure && (code !== 0 || end === undefined || reader.pending > 0)) {
        failure = new SweepError('engine-failed', `the native engine ${signal ? `was killed by ${signal}` : `exited with ${code}`}${stderr ? `: ${stderr.trim()}` : ''}`);
      }
      if (failure) {
        rejectStarted(failure);
        rejectDone(failure);
        return;
      }
      const e = end!;
      const windowMs = windowTo - windowFrom;
      let usage: AgentUsage | null = null;
      if (e.usage !== null) {
        usage = {
          cpuCores: (e.usage.cpu_cores ?? 0) + (cliCpuCores ?? 0),
          eventLoopUtilization: e.usage.loop_utilization ?? 0,
          loopDelayP99Ms: e.usage.loop_delay_p99_ms ?? 0,
          loopName: "the native engine's busiest thread",
        };
      }
      const tls = e.tls && { count: e.tls.handshakes, p50_ms: e.tls.handshake_ms_p50, p99_ms: e.tls.handshake_ms_p99, max_ms: e.tls.handshake_ms_max };
      resolveDone({ open: e.open, inFlightMean: windowMs > 0 ? wireArea / windowMs : null, usage, connections: e.connections, tls, opened: e.opened ?? (tls ? tls.count : null) });
    });
  });
}
