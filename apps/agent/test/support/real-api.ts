import { RunDetail } from '@kneeboard/contracts';
import { freePort, startServerProcess, type ServerProcess } from '@kneeboard/api/testing';

export { freePort };

export interface ApiProcess extends Pick<ServerProcess, 'url' | 'child'> {
  stop(signal?: NodeJS.Signals): Promise<void>;
  run(id: string): Promise<RunDetail>;
}

/** The real API as its own process on `port` (so it can come back on the same address), data in `dataDir`. */
export async function startApi(dataDir: string, port: number, timeoutMs = 30_000): Promise<ApiProcess> {
  const api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir }, timeoutMs, port);
  return {
    url: api.url,
    child: api.child,
    stop: async (signal) => {
      await api.stop(signal);
    },
    run: async (id) => RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${id}`)).json()),
  };
}
