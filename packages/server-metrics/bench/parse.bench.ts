/**
 * How fast the exposition parser reads a cAdvisor-sized body: 5,000 series with five labels each
 * and timestamps (~800 KB). Run: `npx tsx bench/parse.bench.ts` from packages/server-metrics.
 */
import { parseExposition } from '../src/index.ts';

const lines: string[] = [];
for (let i = 0; i < 5000; i += 1) {
  lines.push(`container_cpu_usage_seconds_total{container="c${i % 50}",id="/kubepods/burstable/pod${i}",image="registry/x:1.${i}",namespace="ns${i % 7}",pod="pod-${i}"} ${i * 1.5} 1700000000123`);
}
const body = `${lines.join('\n')}\n`;
for (let i = 0; i < 5; i += 1) parseExposition(body); // warm-up
const runs = 20;
const t = performance.now();
for (let i = 0; i < runs; i += 1) parseExposition(body);
const ms = (performance.now() - t) / runs;
console.log(JSON.stringify({ lines: lines.length, bytes: body.length, msPerParse: Number(ms.toFixed(2)), linesPerSecond: Math.round((lines.length / ms) * 1000) }));
