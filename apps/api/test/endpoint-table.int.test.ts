import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_LIST } from '@kneeboard/contracts';
import { startTestApi, type TestApi } from './helpers.ts';

/**
 * `METHOD /path` of every route a running app has, read from Fastify's own route tree
 * (printRoutes with full segments: each line's segment is appended to its parent's path).
 */
function routesOf(tree: string): Set<string> {
  const routes = new Set<string>();
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + (m[2] as string);
    stack.push(path);
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) routes.add(`${method} ${path}`);
  }
  return routes;
}

/** What the app has beyond the table by design: HEAD beside each GET (Fastify adds it), and the CORS preflight. */
function declaredOnly(routes: Set<string>): Set<string> {
  return new Set([...routes].filter((r) => r !== 'OPTIONS *' && !(r.startsWith('HEAD ') && routes.has(`GET ${r.slice(5)}`))));
}

const TABLE = new Set(ENDPOINT_LIST.map((e) => `${e.method} ${e.path}`));

describe('the endpoint table and the running app', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => api?.close());

  it('has every route the table declares, and no route the table does not', () => {
    const routes = declaredOnly(routesOf(api.app.printRoutes({ commonPrefix: false })));
    expect(routes.size).toBeGreaterThan(30);
    expect([...routes].filter((r) => !TABLE.has(r)), 'routes the table does not declare').toEqual([]);
    expect([...TABLE].filter((r) => !routes.has(r)), 'table rows with no route').toEqual([]);
  });

  it('reads a route tree as routes, so a route outside the table would be seen', () => {
    const tree = ['├── /healthz (GET, HEAD)', '├── /api/v1/runs (POST, GET, HEAD)', '│   └── /:id (GET, HEAD)', '│       └── /extra (PUT)', '└── * (OPTIONS)'].join('\n');
    const routes = declaredOnly(routesOf(tree));
    expect([...routes].sort()).toEqual(['GET /api/v1/runs', 'GET /api/v1/runs/:id', 'GET /healthz', 'POST /api/v1/runs', 'PUT /api/v1/runs/:id/extra']);
    expect([...routes].filter((r) => !TABLE.has(r))).toEqual(['PUT /api/v1/runs/:id/extra']);
  });

  it('documents exactly the table rows not hidden, in OpenAPI', async () => {
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`));
    const visible = ENDPOINT_LIST.filter((e) => !e.hidden).map((e) => `${e.method} ${e.path}`);
    expect(documented.sort()).toEqual(visible.sort());
  });
});
