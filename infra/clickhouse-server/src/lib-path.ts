import { resolveLibchdb } from 'chdb/libchdb';

/** The libchdb.so the pinned chdb package installed: the same engine the embedded mode runs. */
export function libchdbPath(): string {
  return resolveLibchdb().path;
}
