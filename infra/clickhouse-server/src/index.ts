export { startClickHouseServer, type ClickHouseServer, type ServerOptions } from './start-server.ts';
export { startClickHouseCluster, type ClickHouseCluster, type ClusterOptions } from './start-cluster.ts';
export { renderConfigXml, type ClusterLayout } from './config-xml.ts';
