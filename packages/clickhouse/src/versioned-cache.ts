import type { Db } from './db.ts';

/**
 * Results kept per key together with the version they were computed from; a read with another
 * version is a miss. Bounded (least recently used out first), so a process that has seen
 * thousands of runs keeps only the ones still being looked at.
 */
export class VersionedCache<T> {
  readonly #entries = new Map<string, { version: string; value: T }>();
  constructor(readonly max: number) {}

  get(key: string, version: string): T | undefined {
    const e = this.#entries.get(key);
    if (!e || e.version !== version) return undefined;
    // Re-insert: Map keeps insertion order, so the first key is the least recently used.
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e.value;
  }

  set(key: string, version: string, value: T): void {
    this.#entries.delete(key);
    this.#entries.set(key, { version, value });
    while (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  get size(): number {
    return this.#entries.size;
  }
}

const byDb = new WeakMap<Db, Map<string, VersionedCache<unknown>>>();

/**
 * The named cache of one storage handle: results belong to the data they came from, so they live
 * and die with the handle (a test's fresh Db starts empty), not in a module-wide singleton.
 */
export function cacheOf<T>(db: Db, name: string, max = 512): VersionedCache<T> {
  let caches = byDb.get(db);
  if (!caches) byDb.set(db, (caches = new Map()));
  let c = caches.get(name);
  if (!c) caches.set(name, (c = new VersionedCache<unknown>(max)));
  return c as VersionedCache<T>;
}
