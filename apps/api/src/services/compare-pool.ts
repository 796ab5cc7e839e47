import { Worker } from 'node:worker_threads';
import type { compareGroups, CompareOptions, RunGroup } from '@kneeboard/analysis/compare';

type Result = ReturnType<typeof compareGroups>;
export type CompareFn = (base: RunGroup, head: RunGroup, options: CompareOptions) => Promise<Result>;

export interface CompareJob {
  id: number;
  base: RunGroup;
  head: RunGroup;
  options: CompareOptions;
}
export type CompareReply = { id: number; result: Result } | { id: number; error: string };

const WORKER = new URL('./compare-worker.ts', import.meta.url).href;
// The worker is TypeScript like the rest of the API: a two-line bootstrap loads it through tsx's
// API, however the API itself was started (tsx, or vitest in the tests).
const BOOT = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.tsImport(${JSON.stringify(WORKER)}, ${JSON.stringify(WORKER)}));`;

interface Slot {
  worker: Worker;
  busy: boolean;
}

/**
 * Worker threads for the comparison bootstrap, at most `size` (the comparison concurrency, so a
 * comparison never waits here: the CompareGuard's queue is the only queue). Started on first use,
 * kept for the next; a worker that dies fails its job and is replaced on the next call.
 */
export class ComparePool {
  readonly #slots: Slot[] = [];
  readonly #pending = new Map<number, { resolve: (r: Result) => void; reject: (e: Error) => void; slot: Slot }>();
  readonly #waiting: Array<() => void> = [];
  #nextId = 0;

  constructor(private readonly size: number) {}

  readonly compare: CompareFn = async (base, head, options) => {
    const slot = await this.#slot();
    const id = ++this.#nextId;
    slot.busy = true;
    try {
      return await new Promise<Result>((resolve, reject) => {
        this.#pending.set(id, { resolve, reject, slot });
        slot.worker.postMessage({ id, base, head, options } satisfies CompareJob);
      });
    } finally {
      slot.busy = false;
      this.#waiting.shift()?.();
    }
  };

  /**
   * Starts one worker now, so the first comparison after the API starts does not pay for loading
   * the analysis code into a thread (~0.5 s); the server calls it, tests build apps without it.
   */
  warm(): void {
    if (this.#slots.length === 0) this.#start();
  }

  /** Worker threads running now. */
  get workers(): number {
    return this.#slots.length;
  }

  async close(): Promise<void> {
    await Promise.all(this.#slots.splice(0).map((s) => s.worker.terminate()));
  }

  async #slot(): Promise<Slot> {
    for (;;) {
      const idle = this.#slots.find((s) => !s.busy);
      if (idle) return idle;
      if (this.#slots.length < this.size) return this.#start();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  #start(): Slot {
    const worker = new Worker(BOOT, { eval: true });
    worker.unref();
    const slot: Slot = { worker, busy: false };
    worker.on('message', (reply: CompareReply) => {
      const job = this.#pending.get(reply.id);
      if (!job) return;
      this.#pending.delete(reply.id);
      if ('error' in reply) job.reject(new Error(`comparison failed in its worker: ${reply.error}`));
      else job.resolve(reply.result);
    });
    const fail = (err: Error) => {
      const at = this.#slots.indexOf(slot);
      if (at >= 0) this.#slots.splice(at, 1);
      for (const [id, job] of this.#pending) {
        if (job.slot !== slot) continue;
        this.#pending.delete(id);
        job.reject(err);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`comparison worker exited with code ${code}`)));
    this.#slots.push(slot);
    return slot;
  }
}
