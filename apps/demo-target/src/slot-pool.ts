/**
 * W worker slots handed out strictly first come, first served. Callers that find every slot
 * busy wait in a FIFO queue; that wait is the queue time the demo target reports.
 */
export class SlotPool {
  private busy = 0;
  private paused = false;
  private waiting: Array<Waiter | undefined> = [];
  private head = 0;
  private waitingCount = 0;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slot pool size must be a positive integer, got ${size}`);
  }

  /** Slots currently held. */
  get inUse(): number {
    return this.busy;
  }

  /** Callers waiting for a slot. */
  get queued(): number {
    return this.waitingCount;
  }

  /**
   * Calls `onGranted` once a slot is held (synchronously when one is free). Returns a cancel
   * function: a waiter that cancels before its turn is skipped; after its turn, cancel does nothing
   * and the holder must still call release().
   */
  acquire(onGranted: () => void): () => void {
    if (!this.paused && this.busy < this.size && this.waitingCount === 0) {
      this.busy += 1;
      onGranted();
      return () => {};
    }
    const waiter: Waiter = { onGranted, cancelled: false };
    this.waiting.push(waiter);
    this.waitingCount += 1;
    return () => {
      if (waiter.cancelled || waiter.granted) return;
      waiter.cancelled = true;
      this.waitingCount -= 1;
    };
  }

  /** Stops granting slots: requests in service finish, every other request waits (a stall). */
  pause(): void {
    this.paused = true;
  }

  /** Grants slots again, to the queue in arrival order. */
  resume(): void {
    this.paused = false;
    this.grantWaiting();
  }

  release(): void {
    if (this.busy === 0) throw new Error('release() without a held slot');
    this.busy -= 1;
    this.grantWaiting();
  }

  private grantWaiting(): void {
    while (!this.paused && this.busy < this.size && this.head < this.waiting.length) {
      const next = this.waiting[this.head];
      this.waiting[this.head] = undefined;
      this.head += 1;
      if (next === undefined || next.cancelled) continue;
      next.granted = true;
      this.waitingCount -= 1;
      this.busy += 1;
      next.onGranted();
    }
    // Drop the consumed prefix now and then, so a long queue does not keep growing the array.
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
  }
}

interface Waiter {
  onGranted: () => void;
  cancelled: boolean;
  granted?: boolean;
}
