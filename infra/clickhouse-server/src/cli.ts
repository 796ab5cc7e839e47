#!/usr/bin/env -S npx tsx
import { Command, InvalidArgumentError } from 'commander';
import { startClickHouseCluster } from './start-cluster.ts';
import { startClickHouseServer, type ClickHouseServer } from './start-server.ts';

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('expected a positive integer');
  return n;
};

const program = new Command('kneeboard-clickhouse-server')
  .description('A real ClickHouse server (or a sharded cluster) on 127.0.0.1 from the chdb package, no Docker. Ctrl-C stops it.')
  .option('--http-port <port>', 'HTTP port (single server; default: a free port)', positiveInt)
  .option('--tcp-port <port>', 'native TCP port (single server; default: a free port)', positiveInt)
  .option('--data <dir>', 'data directory, kept after stop (default: a temporary one)')
  .option('--shards <n>', 'start a cluster of this many single-replica shards', positiveInt)
  .option('--name <cluster>', 'the cluster name in remote_servers', 'kneeboard')
  .option('--query-log', 'keep system.query_log and system.part_log (to see where the server spends its time)')
  .parse();

const opts = program.opts<{ httpPort?: number; tcpPort?: number; data?: string; shards?: number; name: string; queryLog?: boolean }>();

let stop: () => Promise<void>;
if (opts.shards !== undefined) {
  const cluster = await startClickHouseCluster({ shards: opts.shards, name: opts.name });
  cluster.nodes.forEach((n: ClickHouseServer, i) => console.log(`shard ${i + 1}: ${n.url} (tcp ${n.tcpPort}, data ${n.dataDir})`));
  console.log(`CLICKHOUSE_URL=${cluster.nodes[0]?.url} CLICKHOUSE_CLUSTER=${cluster.name}`);
  stop = () => cluster.stop();
} else {
  const server = await startClickHouseServer({ httpPort: opts.httpPort, tcpPort: opts.tcpPort, dataDir: opts.data, queryLog: opts.queryLog });
  console.log(`ClickHouse ${server.url} (tcp ${server.tcpPort}, data ${server.dataDir})`);
  console.log(`CLICKHOUSE_URL=${server.url}`);
  stop = () => server.stop();
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stop().then(() => process.exit(0));
  });
}
