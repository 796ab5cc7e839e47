import { freePorts } from './free-port.ts';
import { startClickHouseServer, type ClickHouseServer } from './start-server.ts';

export interface ClusterOptions {
  /** The cluster's name in remote_servers (what CLICKHOUSE_CLUSTER takes). */
  name?: string;
  shards?: number;
}

export interface ClickHouseCluster {
  readonly name: string;
  /** One server per shard, in shard order; any of them answers queries for the whole cluster. */
  readonly nodes: readonly ClickHouseServer[];
  stop(): Promise<void>;
}

/**
 * Starts one server per shard, each with the same remote_servers entry naming all of them, so a
 * Distributed table on any node reads and writes across every shard. One replica per shard:
 * replication needs Keeper, which this build lacks (the docker-compose cluster profile has it).
 */
export async function startClickHouseCluster(options: ClusterOptions = {}): Promise<ClickHouseCluster> {
  const name = options.name ?? 'kneeboard';
  const shardCount = options.shards ?? 2;
  const spare = await freePorts(shardCount * 2);
  const ports = Array.from({ length: shardCount }, (_, i) => ({ httpPort: spare[2 * i]!, tcpPort: spare[2 * i + 1]! }));
  const layout = { name, shards: ports.map((p) => [{ tcpPort: p.tcpPort }]) };
  const started = await Promise.allSettled(ports.map((p) => startClickHouseServer({ ...p, cluster: layout })));
  const nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw failure.reason;
  }
  return {
    name,
    nodes,
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
    },
  };
}
