/** Where the data lives. Parsed from the environment by the app that owns the data (the API). */
export type StorageConfig =
  | { mode: 'embedded'; path: string }
  | { mode: 'server'; url: string; username: string; password: string; database: string };

export function describeStorage(config: StorageConfig): string {
  if (config.mode === 'embedded') return `embedded chDB at ${config.path}`;
  const url = new URL(config.url);
  return `ClickHouse server ${url.host}, database ${config.database}`;
}
