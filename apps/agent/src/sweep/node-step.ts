import { performance } from 'node:perf_hooks';
import { wallClockMs, type ServerTimingParser } from '@kneeboard/agent-sdk';
import type { AgentMonitor, AgentUsage } from '../load/agent-monitor.ts';
import { startClosedLoop } from '../load/closed-loop.ts';
import { InFlightGauge, type GaugeMark } from '../load/in-flight-gauge.ts';
import type { LoopHandle } from '../load/loop.ts';
import { startOpenLoop, type OpenLoopCounts } from '../load/open-loop.ts';
import { createTargetPool, type Completion, type TargetRequest } from '../load/target-client.ts';
import { HandshakeTimes } from '../load/tls-handshakes.ts';
import { weightedPick } from '../mix/weighted-pick.ts';
import { MeasurementWindow } from './measurement-window.ts';
import type { BeginStep, DriverResult, StepDriver, StepPlan } from './step-driver.ts';

export interface NodeStepOptions {
  origin: string;
  request: TargetRequest;
  /** `--requests`: the mix's requests and weights (each send picks one), or undefined for `request` alone. */
  mix?: { requests: TargetRequest[]; weights: number[] };
  parseTiming: ServerTimingParser;
  plan: StepPlan;
  arrivals: 'uniform' | 'poisson';
  thinkTimeMs: number;
  maxConnections: number;
  lateToleranceMs: number;
  monitor: AgentMonitor;
  stopGraceMs: number;
}

/**
 * One step on the Node engine: an undici pool sized for the step, the closed or open loop on this
 * process's event loop, the on-the-wire gauge and the agent's own usage over the window.
 */
export function startNodeStep(o: NodeStepOptions, begin: BeginStep): StepDriver {
  const { plan } = o;
  const closed = plan.loadModel === 'closed';
  // Closed: exactly the connections the concurrency needs; open: as many as the rate turns out to need.
  // https://: every TLS handshake of the step, warm-up included (as the native engine counts them); null for http://.
  const handshakes = new URL(o.origin).protocol === 'https:' ? new HandshakeTimes() : null;
  const pool = createTargetPool(o.origin, closed ? Math.min(plan.load, o.maxConnections) : o.maxConnections, o.request.timeoutMs, o.request.tls, handshakes ? (ms) => handshakes.add(ms) : undefined);
  // Every connection undici opens for the step, warm-up included: a level that keeps reconnecting shows.
  let opened = 0;
  pool.on('connect', () => {
    opened += 1;
  });
  const gauge = new InFlightGauge();
  const t0 = performance.now() + 1; // the first send, a moment after the timers below are armed
  // performance.now() times on the wall clock, anchored per step (a suspend between steps must not move them).
  const epoch = wallClockMs() - performance.now();
  const measureFromPerf = t0 + plan.warmupMs;
  const endPerf = measureFromPerf + plan.durationMs;
  const sink = begin(epoch + t0);

  const onResult = (intendedAt: number, c: Completion, index: number) => {
    sink({
      request: index,
      tsMs: epoch + c.endedAt,
      latencyMs: c.endedAt - intendedAt,
      computeMs: c.computeMs,
      queueMs: c.queueMs,
      status: c.status,
      errorKind: c.errorKind,
      unparseable: c.unparseable,
    });
  };
  // A fresh seed per step: levels do not replay one sequence of picks.
  const mix = o.mix && { requests: o.mix.requests, pick: weightedPick(o.mix.weights, (Math.random() * 2 ** 32) >>> 0) };
  const base = { dispatcher: pool, request: o.request, mix, parseTiming: o.parseTiming, gauge, startAt: t0, stopSendingAt: endPerf, onResult };
  const loop: LoopHandle<void | OpenLoopCounts> = closed
    ? startClosedLoop({ ...base, concurrency: plan.load, thinkTimeMs: o.thinkTimeMs })
    : startOpenLoop({
        ...base,
        rate: plan.load,
        arrivals: o.arrivals,
        maxConnections: o.maxConnections,
        windowFrom: measureFromPerf,
        windowTo: endPerf,
        lateToleranceMs: o.lateToleranceMs,
      });

  // The window's marks: agent usage and the in-flight integral from measure_from to the end (or Ctrl-C).
  let markFrom: GaugeMark | undefined;
  let markTo: GaugeMark | undefined;
  let usage: AgentUsage | null = null;
  let connections: number | null = null;
  const measurement = new MeasurementWindow(
    { measureFrom: measureFromPerf, endsAt: endPerf },
    {
      now: () => performance.now(),
      onOpen: () => {
        markFrom = gauge.mark();
        o.monitor.start();
      },
      onClose: () => {
        markTo = gauge.mark();
        usage = o.monitor.stop();
        connections = pool.stats.connected;
      },
      // Requests still out long after the end have had the request timeout; stop waiting for the backlog then.
      deadline: { afterEndMs: o.request.timeoutMs + o.stopGraceMs, onDeadline: () => loop.stopSending() },
      onStop: () => loop.stopSending(),
      grace: {
        ms: o.stopGraceMs,
        onGraceOver: () => {
          loop.cancel();
          void pool.destroy();
        },
      },
    },
  );

  const done = (async (): Promise<DriverResult> => {
    let counts: void | OpenLoopCounts;
    try {
      counts = await loop.done;
    } finally {
      measurement.dispose();
      await pool.close().catch(() => pool.destroy());
    }
    measurement.close();
    return { open: counts ?? null, inFlightMean: markFrom && markTo ? InFlightGauge.mean(markFrom, markTo) : null, usage, connections, opened, tls: handshakes?.summary() ?? null };
  })();

  return {
    inFlight: () => gauge.current,
    stop: () => measurement.stop(),
    done,
  };
}
