/** One node of a cluster as the other nodes reach it (native TCP protocol). */
export interface ClusterNode {
  tcpPort: number;
}

export interface ClusterLayout {
  name: string;
  /** shards[i] lists the replicas of shard i + 1. */
  shards: ClusterNode[][];
}

const CLUSTER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The server config: a quiet logger (the launcher captures stdout/stderr) and, for a cluster, the
 * remote_servers entry that every node carries so Distributed tables and system.clusters see all
 * shards. No Keeper: this build has none, so replicas cannot replicate and ON CLUSTER is refused.
 */
export function renderConfigXml(cluster?: ClusterLayout, options: { queryLog?: boolean } = {}): string {
  if (cluster && !CLUSTER_NAME.test(cluster.name)) throw new Error(`cluster name ${JSON.stringify(cluster.name)} must match ${CLUSTER_NAME}`);
  const shards = (cluster?.shards ?? [])
    .map((replicas) => {
      const rs = replicas.map((r) => `<replica><host>127.0.0.1</host><port>${r.tcpPort}</port></replica>`).join('');
      return `      <shard><internal_replication>true</internal_replication>${rs}</shard>`;
    })
    .join('\n');
  const remote = cluster ? `  <remote_servers>\n    <${cluster.name}>\n${shards}\n    </${cluster.name}>\n  </remote_servers>\n` : '';
  // Off by default (the suite's servers need no history); benches turn them on to see where time goes.
  const logs = options.queryLog
    ? '  <query_log><database>system</database><table>query_log</table><flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log>\n' +
      '  <part_log><database>system</database><table>part_log</table><flush_interval_milliseconds>1000</flush_interval_milliseconds></part_log>\n'
    : '';
  return `<clickhouse>\n  <logger><level>warning</level><console>1</console></logger>\n${remote}${logs}</clickhouse>\n`;
}
