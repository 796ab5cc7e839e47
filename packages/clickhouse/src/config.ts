/** Where the data lives. Parsed from the environment by the app that owns the data (the API). */
export type StorageConfig =
  | { mode: 'embedded'; path: string }
  | {
      mode: 'server';
      url: string;
      username: string;
      password: string;
      database: string;
      /** A cluster in the server's remote_servers: local tables on every shard, Distributed tables for reads. */
      cluster?: string | undefined;
    };

export function describeStorage(config: StorageConfig): string {
  if (config.mode === 'embedded') return `embedded chDB at ${config.path}`;
  const url = new URL(config.url);
  return `ClickHouse server ${url.host}, database ${config.database}${config.cluster ? `, cluster ${config.cluster}` : ''}`;
}
