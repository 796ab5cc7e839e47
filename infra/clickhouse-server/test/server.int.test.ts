import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickHouseCluster, startClickHouseServer, type ClickHouseCluster, type ClickHouseServer } from '../src/index.ts';

const rows = async <T>(url: string, query: string): Promise<T[]> => {
  const client = createClient({ url });
  try {
    return (await (await client.query({ query, format: 'JSONEachRow' })).json()) as T[];
  } finally {
    await client.close();
  }
};

describe('a ClickHouse server from libchdb.so', () => {
  let server: ClickHouseServer;
  beforeAll(async () => {
    server = await startClickHouseServer();
  });
  afterAll(async () => server?.stop());

  it('answers the HTTP interface with the engine embedded mode uses', async () => {
    const [row] = await rows<{ v: string }>(server.url, 'SELECT version() AS v');
    expect(row?.v).toMatch(/^26\./);
  });

  it('keeps its data across a kill and a restart on the same ports', async () => {
    const client = createClient({ url: server.url });
    await client.command({ query: 'CREATE TABLE t (x UInt32) ENGINE = MergeTree ORDER BY x' });
    await client.insert({ table: 't', values: [{ x: 1 }, { x: 2 }], format: 'JSONEachRow' });
    await client.close();
    await server.kill();
    await expect(fetch(`${server.url}/ping`)).rejects.toThrow();
    await server.restart();
    const [row] = await rows<{ n: string }>(server.url, 'SELECT count() AS n FROM t');
    expect(Number(row?.n)).toBe(2);
  });
});

describe('a 2-shard cluster of such servers', () => {
  let cluster: ClickHouseCluster;
  beforeAll(async () => {
    cluster = await startClickHouseCluster({ shards: 2, name: 'kb_test' });
  });
  afterAll(async () => cluster?.stop());

  it('lists both shards in system.clusters on every node', async () => {
    for (const node of cluster.nodes) {
      const shards = await rows<{ shard_num: number; port: number }>(node.url, "SELECT shard_num, port FROM system.clusters WHERE cluster = 'kb_test' ORDER BY shard_num");
      expect(shards.map((s) => s.port)).toEqual(cluster.nodes.map((n) => n.tcpPort));
    }
  });

  it('spreads a Distributed insert over both shards and reads it back whole', async () => {
    for (const node of cluster.nodes) {
      const c = createClient({ url: node.url });
      await c.command({ query: 'CREATE TABLE local_t (x UInt64) ENGINE = MergeTree ORDER BY x' });
      await c.close();
    }
    const [first] = cluster.nodes;
    const c = createClient({ url: first!.url });
    await c.command({ query: "CREATE TABLE dist_t AS local_t ENGINE = Distributed('kb_test', currentDatabase(), local_t, rand())" });
    await c.command({ query: 'INSERT INTO dist_t SELECT number FROM numbers(10000)', clickhouse_settings: { distributed_foreground_insert: 1 } });
    await c.close();
    const perShard = await Promise.all(cluster.nodes.map(async (n) => Number((await rows<{ n: string }>(n.url, 'SELECT count() AS n FROM local_t'))[0]?.n)));
    expect(perShard.every((n) => n > 0)).toBe(true);
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(10000);
    const [whole] = await rows<{ n: string; s: string }>(first!.url, 'SELECT count() AS n, sum(x) AS s FROM dist_t');
    expect(Number(whole?.n)).toBe(10000);
    expect(Number(whole?.s)).toBe((9999 * 10000) / 2);
  });
});
