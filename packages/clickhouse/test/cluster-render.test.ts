import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderForCluster, SHARDING_KEYS } from '../src/cluster/render.ts';
import { loadMigrations } from '../src/migrate.ts';

const golden = (name: string) => fileURLToPath(new URL(`./golden/${name}`, import.meta.url));

/** Every migration as the cluster gets it, one file: what a reviewer reads. */
function renderAll(replicated: boolean): string {
  return loadMigrations()
    .map((m) => [`-- ${m.file}`, ...renderForCluster(m.sql, { cluster: 'kneeboard', replicated }).map((s) => `-- runs on: ${s.on}\n${s.sql.trim()};`)].join('\n'))
    .join('\n\n')
    .concat('\n');
}

/** UPDATE_GOLDEN=1 rewrites the files after a deliberate change; review the diff. */
function expectGolden(name: string, text: string): void {
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden(name), text);
  expect(text).toBe(readFileSync(golden(name), 'utf8'));
}

describe('migrations rendered for a cluster', () => {
  it('with Keeper: ON CLUSTER, Replicated*MergeTree local tables and Distributed tables (golden)', () => {
    expectGolden('replicated-cluster.sql', renderAll(true));
  });

  it('without Keeper: the same tables node by node, plain engines (golden)', () => {
    expectGolden('node-by-node-cluster.sql', renderAll(false));
  });

  it('gives every table a local and a Distributed table with a sharding key, and keeps the engine parameters', () => {
    const create = renderForCluster('CREATE TABLE IF NOT EXISTS kb_runs_v1\n(id UUID, version UInt64)\nENGINE = ReplacingMergeTree(version)\nORDER BY id', { cluster: 'c1', replicated: true });
    expect(create.map((s) => s.sql)).toEqual([
      "CREATE TABLE IF NOT EXISTS kb_runs_v1_local ON CLUSTER c1\n(id UUID, version UInt64)\nENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/kb_runs_v1_local', '{replica}', version)\nORDER BY id",
      `CREATE TABLE IF NOT EXISTS kb_runs_v1 ON CLUSTER c1 AS kb_runs_v1_local\nENGINE = Distributed(c1, currentDatabase(), kb_runs_v1_local, ${SHARDING_KEYS.kb_runs_v1})`,
    ]);
    const backfill = renderForCluster('INSERT INTO kb_request_seconds_v1 SELECT * FROM kb_requests_v1', { cluster: 'c1', replicated: true });
    expect(backfill).toEqual([{ sql: 'INSERT INTO kb_request_seconds_v1_local SELECT * FROM kb_requests_v1_local', on: 'each-shard' }]);
    const cleanUp = renderForCluster('DELETE FROM kb_request_seconds_v1 WHERE run_id IN (SELECT run_id FROM kb_request_name_seconds_v1)', { cluster: 'c1', replicated: true });
    expect(cleanUp).toEqual([{ sql: 'DELETE FROM kb_request_seconds_v1_local WHERE run_id IN (SELECT run_id FROM kb_request_name_seconds_v1_local)', on: 'each-shard' }]);
  });

  it('refuses what it cannot render, and a cluster name that is not an identifier', () => {
    expect(() => renderForCluster('DROP TABLE kb_runs_v1', { cluster: 'c1', replicated: false })).toThrow(/cannot render/);
    expect(() => renderForCluster('ALTER TABLE kb_runs_v1 DROP COLUMN x', { cluster: 'c1; DROP', replicated: false })).toThrow(/must match/);
  });
});
