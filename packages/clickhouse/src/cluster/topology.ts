import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';

/** What the migrations and the write path need to reach every node of a cluster directly. */
export interface ClusterNode {
  shard: number;
  replica: number;
  /** The node's HTTP interface, found through its native port (system.clusters lists only that). */
  url: string;
}

export interface ClusterTopology {
  name: string;
  /** Keeper is configured: ON CLUSTER DDL and replication work. */
  keeper: boolean;
  nodes: ClusterNode[];
  /** Shard numbers in order. */
  shards: number[];
}

const ClusterRow = z.object({ shard_num: z.coerce.number(), replica_num: z.coerce.number(), host_address: z.string(), port: z.coerce.number() });
const PortRow = z.object({ http: z.coerce.number(), tcp: z.coerce.number() });

/**
 * Reads the cluster from system.clusters on the entry node and asks each node (through remote())
 * for its own HTTP port, so nothing but CLICKHOUSE_URL and CLICKHOUSE_CLUSTER is configured.
 */
export async function discoverCluster(entry: ClickHouseClient, name: string, protocol: string): Promise<ClusterTopology> {
  const rows = z.array(ClusterRow).parse(
    await (
      await entry.query({
        query: 'SELECT shard_num, replica_num, host_address, port FROM system.clusters WHERE cluster = {name:String} ORDER BY shard_num, replica_num',
        query_params: { name },
        format: 'JSONEachRow',
      })
    ).json(),
  );
  if (rows.length === 0) throw new Error(`CLICKHOUSE_CLUSTER=${name}: no such cluster in system.clusters of the server at CLICKHOUSE_URL`);
  const nodes = await Promise.all(
    rows.map(async (r) => {
      const address = r.host_address.includes(':') ? `[${r.host_address}]` : r.host_address;
      const port = PortRow.parse(
        (
          await (
            await entry.query({
              query: `SELECT * FROM remote({addr:String}, view(SELECT getServerPort('http_port') AS http, tcpPort() AS tcp FROM system.one))`,
              query_params: { addr: `${address}:${r.port}` },
              format: 'JSONEachRow',
            })
          ).json()
        )[0],
      );
      if (port.tcp !== r.port) throw new Error(`node ${address}:${r.port} answered from its own tcp port ${port.tcp}: cannot tell its HTTP port`);
      return { shard: r.shard_num, replica: r.replica_num, url: `${protocol}//${address}:${port.http}` };
    }),
  );
  const keeper = z
    .array(z.object({ n: z.coerce.number() }))
    .parse(await (await entry.query({ query: "SELECT count() AS n FROM system.tables WHERE database = 'system' AND name = 'zookeeper_connection'", format: 'JSONEachRow' })).json())[0]?.n === 1;
  return { name, keeper, nodes, shards: [...new Set(nodes.map((n) => n.shard))] };
}

/** A client for one node, with the entry node's credentials. */
export function nodeClient(node: ClusterNode, auth: { username: string; password: string; database?: string }): ClickHouseClient {
  return createClient({ url: node.url, username: auth.username, password: auth.password, database: auth.database, request_timeout: 60_000 });
}

/** The shard a batch's rows go to: a hash of its deduplication token, so a replay meets its first copy. */
export function shardOf(token: string, shards: number[]): number {
  let h = 2166136261;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 16777619);
  return shards[(h >>> 0) % shards.length] as number;
}
