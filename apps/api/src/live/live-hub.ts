import type { LiveFigures } from '@kneeboard/clickhouse';
import type { CurvePoint, RunDetail } from '@kneeboard/contracts';

export type LiveListener = (detail: RunDetail) => void;

/**
 * After a run's last stored batch, this long without another: its curve is read from storage once
 * more (the exact figures where `auto` chooses them), so a quiet run shows what GET /runs/{id} shows.
 */
const QUIET_MS = 1_000;

interface Channel {
  listeners: Set<LiveListener>;
  timer: NodeJS.Timeout | null;
  /** The last detail read from storage: its run and steps go with a curve from memory. */
  base: RunDetail | null;
  /** The next refresh reads storage (the run or its steps changed, or the run went quiet), not memory. */
  full: boolean;
  quiet: NodeJS.Timeout | null;
  /** The run's change mark when last polled (server mode): a new one means another process wrote. */
  mark: string | undefined;
  lastRefreshAt: number;
  lastPayload: string;
  refreshing: boolean;
  /** A write arrived during a refresh, so that refresh may have missed it. */
  dirty: boolean;
}

export interface LiveHubOptions {
  /** Never recompute a run's curve more often than this: one query serves every viewer. */
  minIntervalMs?: number;
  /** How often to ask storage whether another API process wrote to a watched run. */
  pollMs?: number;
  /**
   * Change marks of runs (one cheap query for all watched runs); a run is recomputed only when
   * its mark moved. Absent when this process sees every write (embedded: it owns the data).
   */
  marks?: ((runIds: string[]) => Promise<Map<string, string>>) | null;
  /**
   * Present where this process sees every write (the embedded store): stored batches are shown
   * from the figures the store keeps in memory, with `compose` making the detail — no query per
   * snapshot on an engine that runs one statement at a time.
   */
  figures?: { live: LiveFigures; compose: (base: RunDetail, curve: CurvePoint[]) => RunDetail } | null;
}

/** What the hub has done, for the readiness report and for tests that count work, not time. */
export interface LiveStats {
  watchedRuns: number;
  viewers: number;
  /** Curves recomputed since start: once per run per change, however many viewers. */
  refreshes: number;
  /** Change-mark polls since start (one query each, for all watched runs). */
  polls: number;
  /** Of the refreshes, those made from the figures in memory (no query). */
  fromMemory: number;
}

/**
 * Pushes a run's RunDetail to everyone watching it. The store says when it stored a batch
 * (stored()); whatever else changes a run calls notify(). The curve is recomputed once per
 * interval however many batches arrived or viewers are connected, and sent only when it changed.
 * Nothing is recomputed for a run nobody wrote to: writes through this process are told, and
 * writes through others are seen by one poll of change marks for all watched runs together. Where
 * the store keeps the figures in memory, a batch is shown from them, and storage is read again
 * only when the run or its steps change and once the run has gone quiet.
 */
export class LiveHub {
  readonly #channels = new Map<string, Channel>();
  readonly #minIntervalMs: number;
  readonly #pollMs: number;
  readonly #marks: LiveHubOptions['marks'];
  readonly #figures: LiveHubOptions['figures'];
  #fromMemory = 0;
  readonly #changeListeners = new Set<(runId: string) => void>();
  #poller: NodeJS.Timeout | null = null;
  #polling = false;
  #refreshes = 0;
  #polls = 0;

  constructor(
    private readonly load: (runId: string) => Promise<RunDetail | null>,
    private readonly onError: (err: unknown) => void,
    options: LiveHubOptions = {},
  ) {
    this.#minIntervalMs = options.minIntervalMs ?? 250;
    this.#pollMs = options.pollMs ?? 1000;
    this.#marks = options.marks;
    this.#figures = options.figures;
  }

  /** Called on every notify, watched or not (the comparison cache forgets the run). */
  onChange(listener: (runId: string) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  get stats(): LiveStats {
    let viewers = 0;
    for (const c of this.#channels.values()) viewers += c.listeners.size;
    return { watchedRuns: this.#channels.size, viewers, refreshes: this.#refreshes, polls: this.#polls, fromMemory: this.#fromMemory };
  }

  /** `first`: the detail the viewer was just sent, read from storage (what a curve from memory goes with). */
  subscribe(runId: string, listener: LiveListener, first?: RunDetail): () => void {
    let channel = this.#channels.get(runId);
    if (!channel) {
      channel = {
        listeners: new Set(),
        timer: null,
        base: first ?? null,
        full: first === undefined,
        quiet: null,
        mark: undefined,
        lastRefreshAt: 0,
        lastPayload: '',
        refreshing: false,
        dirty: false,
      };
      this.#channels.set(runId, channel);
      this.#startPolling();
    }
    channel.listeners.add(listener);
    return () => this.#unsubscribe(runId, listener);
  }

  /** The run changed (or may have), other than by a batch this process stored: a throttled recompute from storage if anyone watches. */
  notify(runId: string): void {
    this.#figures?.live.reset(runId);
    const channel = this.#channels.get(runId);
    if (channel) channel.full = true;
    this.#changed(runId);
  }

  /** The store stored a batch of the run: from memory where it keeps the figures, from storage otherwise. */
  stored(runId: string): void {
    const channel = this.#channels.get(runId);
    if (channel && !this.#figures) channel.full = true;
    this.#changed(runId);
  }

  #changed(runId: string): void {
    for (const listener of this.#changeListeners) listener(runId);
    this.#schedule(runId);
  }

  #schedule(runId: string): void {
    const channel = this.#channels.get(runId);
    if (!channel || channel.timer) return;
    if (channel.refreshing) {
      channel.dirty = true;
      return;
    }
    const wait = Math.max(0, channel.lastRefreshAt + this.#minIntervalMs - Date.now());
    channel.timer = setTimeout(() => void this.#refresh(runId, channel), wait);
  }

  close(): void {
    for (const [runId, channel] of this.#channels) {
      channel.listeners.clear();
      this.#drop(runId, channel);
    }
  }

  async #refresh(runId: string, channel: Channel): Promise<void> {
    channel.timer = null;
    channel.refreshing = true;
    channel.dirty = false;
    this.#refreshes++;
    const startedAt = Date.now();
    const figures = this.#figures;
    const fromMemory = figures !== null && figures !== undefined && channel.base !== null && !channel.full;
    channel.full = false;
    if (channel.quiet) clearTimeout(channel.quiet);
    channel.quiet = null;
    try {
      let detail: RunDetail | null;
      if (fromMemory) {
        this.#fromMemory++;
        detail = figures.compose(channel.base as RunDetail, await figures.live.curve(runId));
        // Once nothing more arrives, the figures as storage gives them (exact where `auto` says so),
        // and the next batch's figures read afresh: whatever the memory got wrong lasts one burst.
        channel.quiet = setTimeout(() => {
          channel.quiet = null;
          channel.full = true;
          figures.live.reset(runId);
          this.#schedule(runId);
        }, QUIET_MS);
      } else {
        detail = await this.load(runId);
        channel.base = detail;
      }
      if (!detail) return;
      const payload = JSON.stringify(detail);
      if (payload === channel.lastPayload) return;
      channel.lastPayload = payload;
      for (const listener of channel.listeners) listener(detail);
    } catch (err) {
      // Storage answers the next one.
      if (fromMemory) channel.full = true;
      this.onError(err);
    } finally {
      channel.refreshing = false;
      channel.lastRefreshAt = startedAt;
      if (channel.dirty && this.#channels.get(runId) === channel) this.#schedule(runId);
    }
  }

  #unsubscribe(runId: string, listener: LiveListener): void {
    const channel = this.#channels.get(runId);
    if (!channel) return;
    channel.listeners.delete(listener);
    if (channel.listeners.size === 0) this.#drop(runId, channel);
  }

  #drop(runId: string, channel: Channel): void {
    if (channel.timer) clearTimeout(channel.timer);
    if (channel.quiet) clearTimeout(channel.quiet);
    this.#figures?.live.drop(runId);
    this.#channels.delete(runId);
    if (this.#channels.size === 0 && this.#poller) {
      clearInterval(this.#poller);
      this.#poller = null;
    }
  }

  #startPolling(): void {
    if (!this.#marks || this.#poller) return;
    this.#poller = setInterval(() => void this.#poll(), this.#pollMs);
  }

  /** One query for every watched run; a run whose mark moved is recomputed (the first poll only records marks). */
  async #poll(): Promise<void> {
    if (this.#polling || !this.#marks) return;
    this.#polling = true;
    this.#polls++;
    try {
      const marks = await this.#marks([...this.#channels.keys()]);
      for (const [runId, channel] of this.#channels) {
        const mark = marks.get(runId.toLowerCase());
        if (mark === undefined) continue;
        const seen = channel.mark;
        channel.mark = mark;
        if (seen !== undefined && seen !== mark) this.notify(runId);
      }
    } catch (err) {
      this.onError(err);
    } finally {
      this.#polling = false;
    }
  }
}
