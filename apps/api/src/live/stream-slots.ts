import { HttpError } from '../errors.ts';
import { LIMIT_VARS } from '../plugins/limits.ts';

/** Wait this long before reconnecting when refused: long enough for a tab to have been closed. */
const RETRY_AFTER_S = 10;

/**
 * Open live streams, per client and in all. A stream costs a socket and a seat in its run's
 * updates for as long as it stays open; without a cap one client can hold hundreds.
 */
export class StreamSlots {
  readonly #byClient = new Map<string, number>();
  #total = 0;

  constructor(
    readonly perClient: number,
    readonly total: number,
  ) {}

  get open(): number {
    return this.#total;
  }

  /** A slot for `client`, released by the function returned (once, however often called); 429 when none is free. */
  acquire(client: string): () => void {
    const mine = this.#byClient.get(client) ?? 0;
    if (mine >= this.perClient) {
      throw new HttpError(429, `${mine} live streams open from this client; at most ${this.perClient} (${LIMIT_VARS.livePerClient})`, 'live', undefined, RETRY_AFTER_S);
    }
    if (this.#total >= this.total) {
      throw new HttpError(429, `${this.#total} live streams open; at most ${this.total} in all (${LIMIT_VARS.liveTotal})`, 'live', undefined, RETRY_AFTER_S);
    }
    this.#byClient.set(client, mine + 1);
    this.#total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total--;
      const left = (this.#byClient.get(client) ?? 1) - 1;
      if (left === 0) this.#byClient.delete(client);
      else this.#byClient.set(client, left);
    };
  }
}
