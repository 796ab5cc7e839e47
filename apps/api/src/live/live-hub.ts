import type { RunDetail } from '@kneeboard/contracts';

export type LiveListener = (detail: RunDetail) => void;

interface Channel {
  listeners: Set<LiveListener>;
  timer: NodeJS.Timeout | null;
  poller: NodeJS.Timeout;
  lastRefreshAt: number;
  lastPayload: string;
  refreshing: boolean;
  /** A write arrived during a refresh, so that refresh may have missed it. */
  dirty: boolean;
}

export interface LiveHubOptions {
  /** Never recompute a run's curve more often than this: one query serves every viewer. */
  minIntervalMs?: number;
  /** Recompute at least this often while someone watches, to see writes from other API processes. */
  pollMs?: number;
}

/**
 * Pushes a run's RunDetail to everyone watching it. Writes call notify(); the curve is recomputed
 * once per interval however many batches arrived or viewers are connected, and sent only when it
 * changed.
 */
export class LiveHub {
  readonly #channels = new Map<string, Channel>();
  readonly #minIntervalMs: number;
  readonly #pollMs: number;

  constructor(
    private readonly load: (runId: string) => Promise<RunDetail | null>,
    private readonly onError: (err: unknown) => void,
    options: LiveHubOptions = {},
  ) {
    this.#minIntervalMs = options.minIntervalMs ?? 250;
    this.#pollMs = options.pollMs ?? 1000;
  }

  subscribe(runId: string, listener: LiveListener): () => void {
    let channel = this.#channels.get(runId);
    if (!channel) {
      channel = {
        listeners: new Set(),
        timer: null,
        poller: setInterval(() => this.notify(runId), this.#pollMs),
        lastRefreshAt: 0,
        lastPayload: '',
        refreshing: false,
        dirty: false,
      };
      this.#channels.set(runId, channel);
    }
    channel.listeners.add(listener);
    return () => this.#unsubscribe(runId, listener);
  }

  /** The run's data changed (or may have): schedule a throttled recompute if anyone watches. */
  notify(runId: string): void {
    const channel = this.#channels.get(runId);
    if (!channel || channel.timer) return;
    if (channel.refreshing) {
      channel.dirty = true;
      return;
    }
    const wait = Math.max(0, channel.lastRefreshAt + this.#minIntervalMs - Date.now());
    channel.timer = setTimeout(() => void this.#refresh(runId, channel), wait);
  }

  get watchedRuns(): number {
    return this.#channels.size;
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
    const startedAt = Date.now();
    try {
      const detail = await this.load(runId);
      if (!detail) return;
      const payload = JSON.stringify(detail);
      if (payload === channel.lastPayload) return;
      channel.lastPayload = payload;
      for (const listener of channel.listeners) listener(detail);
    } catch (err) {
      this.onError(err);
    } finally {
      channel.refreshing = false;
      channel.lastRefreshAt = startedAt;
      if (channel.dirty && this.#channels.get(runId) === channel) this.notify(runId);
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
    clearInterval(channel.poller);
    this.#channels.delete(runId);
  }
}
